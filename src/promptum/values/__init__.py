"""The values every layer shares: completions, grades, results and the figures read from them."""
