"""promptfoo Python assertions for the importer's tests."""


def get_assert(output, context):
    return {
        "pass": "12" in output,
        "score": 1.0 if "12" in output else 0.0,
        "reason": "price named",
    }


def mentions_shop(output, context):
    return context["config"]["shop"] in output or output.startswith("{")
