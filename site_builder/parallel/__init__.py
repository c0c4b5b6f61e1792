"""parallel: work spread over processes (load, digests, rendering), with the same result as in one.

Each module does one job in worker processes when there is enough of it to pay for them, and in
this process otherwise; the output is the same either way.

- ``forked``: one function's result, worked out in a forked copy of this process;
- ``bulk_load``: many data files parsed and validated, over a pool when the parse cache misses;
- ``run_digests``: many runs' digests at once;
- ``render_pool``: every page rendered, one worker per core, in site order.
"""
