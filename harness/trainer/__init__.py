"""The trainer's side: submissions, the room, verification of claims, the page."""
