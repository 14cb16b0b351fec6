"""A promptfoo Python provider for the importer's tests: a shop assistant without a model."""


def call_api(prompt, options, context):
    shop = options["config"]["shop"]
    if prompt.startswith("json:"):
        return {
            "output": '{"item": "blue mug", "price": 12}',
            "tokenUsage": {"prompt": 5, "completion": 9},
        }
    return {
        "output": f"The blue mug costs 12 euros at {shop}.",
        "tokenUsage": {"prompt": 7, "completion": 10},
    }
