"""What every package shares below the values: registries, lazy names, user code, redaction."""
