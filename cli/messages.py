"""What the terminal says in its prompts: the words, in one place."""

from __future__ import annotations

WHAT_IS_WRONG = (
    "What is wrong?  1) the plan's direction  2) one step's parameters  3) only the output's format"
    "  4) let Tandem decide  — or just say it"
)
CHOICE_PROMPT = "1-4, or say what is wrong > "
NO_SUCH_CHOICE = "There is no option {choice}: type 1, 2, 3 or 4, or say what is wrong in words."
TAKEN_AS_FEEDBACK = "Taken as your feedback; Tandem reads what kind of change it asks for."
FEEDBACK_PROMPT = "Feedback > "
FEEDBACK_REQUIRED = "Feedback is required to request changes; nothing changed."
NUMBER_IS_NOT_FEEDBACK = (
    "“{number}” alone is not feedback: say what should change, e.g. “use limit 50” or “use level warn”"
    " (Enter changes nothing)."
)
STEP_PROMPT = "Which step? [{default}] > "
NO_SUCH_STEP = "There is no step {step}: type a step number from 1 to {last}, or press Enter for the default."
NOTE_EARLIER = "Note from {time}, before you resumed: {note}"
