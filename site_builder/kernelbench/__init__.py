"""KernelBench's pages: its problems by level and operator family, and one page per problem that
sets every GPU side by side and eager against each torch.compile mode (issue 27).

``views`` holds the view models (their JSON mirrors are published like every page's), ``context``
builds them from the leaderboard, ``figures`` the derived numbers (pure functions).
"""
