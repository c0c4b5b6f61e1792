"""Finding things (issue 9): GPU and model coverage, the records ledger, feeds, badges, sitemap,
robots.txt and llms.txt, derived once per build from the leaderboard.

``discovery(board)`` derives the shared indexes once and keeps them on the board, so the pages
(``context/finding.py``) and the extra files (``discover/outputs.py``) read the same figures.
"""

from __future__ import annotations

from .state import Discovery, discovery

__all__ = ["Discovery", "discovery"]
