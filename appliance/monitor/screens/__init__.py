"""Screens pushed over the tabs: a call's transcript, and the small prompts."""
