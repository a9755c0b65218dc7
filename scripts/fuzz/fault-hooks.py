# Schemathesis hooks for `npm run fuzz:api -- --faults` (loaded through SCHEMATHESIS_HOOKS): the fault-switch routes
# fuzzed on their own, setSandboxFault included. Four kinds change how the sandbox answers the requests that follow
# rather than what they are about: service.restart and chain.restart stop the service or a chain for up to 60 s of
# wall time, service.maintenance and service.slow answer 503 or up to 60 s late on the routes they match (generated
# route patterns can match the fault routes themselves). A generated switch of those kinds would turn every later
# answer of the run into noise, so their bodies are dropped here; their own tests are in src/service/faults/ and the
# service-crash-restart and chain-restart scenarios. Every other kind, and every malformed body, is still sent.
import schemathesis

ANSWER_CHANGING_KINDS = {"service.restart", "chain.restart", "service.maintenance", "service.slow"}


@schemathesis.hook
def filter_body(context, body):
    return not (isinstance(body, dict) and body.get("kind") in ANSWER_CHANGING_KINDS)
