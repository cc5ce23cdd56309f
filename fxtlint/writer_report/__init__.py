"""The writer's conformance report: which record kinds and rules a trace
exercised (coverage, rule scope) and the expectations it is held to.
"""
