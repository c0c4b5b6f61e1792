"""Search and compare (issue 9), implemented once in Python and once in the browser.

``index.build_search_index`` writes the compact index (api/v1/search-index.json);
``query.parse_query`` and ``match.search`` answer a query over it; ``compare.compare_runs``
aligns 2–8 run mirrors. templates/static/search.js and compare.js implement the same documented
algorithms over the same documents, and tests/discover/test_search_js.py runs them against
answers computed here.
"""
