"""The demo: a small simulated ops world (payments starts degraded) and the toolset that works on it.

Used by ``tandem dev``, ``--demo``, the tests and the benches. The product
(``agent/``, ``storage/``, ``bot/``) never imports it; it is loaded by name
(``TANDEM_TOOLS=demo.tools``) like any other toolset.
"""
