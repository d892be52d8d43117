"""Seeded prompts for the distillation corpus: support questions in the Nimbus style, openings
of general prose, and plain-text requests built from a task and a topic. The target writes the
continuations; nothing is downloaded."""
from __future__ import annotations

import numpy as np

SUPPORT_SYSTEM = ("You are Nimbus, the support assistant of a cloud workspace app. "
                  "Answer customers clearly and kindly.")

_PROBLEMS = [
    "my export failed", "the CSV export keeps timing out", "I can't log in after resetting my password",
    "my invoice shows the wrong amount", "files stopped syncing to my laptop",
    "the upload is stuck at 99%", "I was charged twice this month", "the API returns error 429",
    "my team can't see the shared folder", "two-factor codes are not arriving",
    "the mobile app crashes on start", "my PDF report is missing pages", "search finds nothing",
    "the calendar integration disconnected", "I deleted a project by mistake",
    "my storage is full but I deleted files", "the dashboard loads very slowly",
    "I need to change the account owner", "webhooks are not firing", "my trial ended early",
    "the import from Excel mangles dates", "notifications come in twice",
    "the desktop app says my licence is invalid", "I can't cancel my subscription",
]
_ASKS = [
    "What should I do?", "Can you help?", "How do I fix this?", "Why does this happen?",
    "Is this a known issue?", "Please explain what went wrong.", "What are my options?",
    "Can you walk me through it step by step?",
]
_OPENINGS = [
    "Your export failed because your", "The report could not be generated because",
    "Thank you for reaching out. The reason", "To restore your files, first",
    "We noticed that your account", "The history of the printing press", "Once upon a time, in a",
    "Photosynthesis is the process by which", "The best way to learn a new language is",
    "In the middle of the night, the", "Here are three tips for writing clear emails:",
    "The main difference between a virus and a bacterium", "When the storm finally passed,",
    "A good password should", "Machine learning models learn by", "The city council voted to",
    "To bake a simple loaf of bread,", "Our quarterly results show", "The museum's new exhibit",
    "Scientists have discovered that", "If your payment was declined,", "Dear customer, we are sorry",
    "The train left the station at", "Climate change affects farmers because",
    "Step 1: Open the settings page.", "The recipe calls for", "In 1969, astronauts",
]


_TASKS = [
    "Write a few lines about", "Explain in simple terms", "Give three tips on",
    "An introduction to", "Five facts about", "Summarise the main idea of",
    "Here is a checklist for", "Describe a common mistake with", "Why people care about",
    "Write a friendly reply to a customer asking about", "The pros and cons of",
    "A step-by-step plan for",
]
_TOPICS = [
    "saving money", "learning to code", "time zones", "backing up photos", "remote work",
    "healthy sleep", "writing a CV", "the water cycle", "password managers", "public speaking",
    "moving house", "electric cars", "spreadsheets", "team meetings", "late deliveries",
    "shared calendars", "cloud storage", "refunds", "keyboard shortcuts", "growing tomatoes",
    "the solar system", "version control", "customer feedback", "travelling on a budget",
]


def support_messages(rng: np.random.Generator) -> list[dict]:
    problem = _PROBLEMS[rng.integers(len(_PROBLEMS))]
    ask = _ASKS[rng.integers(len(_ASKS))]
    text = f"Hi, {problem}. {ask}"
    return [{"role": "system", "content": SUPPORT_SYSTEM}, {"role": "user", "content": text}]


def request(rng: np.random.Generator) -> str:
    return f"{_TASKS[rng.integers(len(_TASKS))]} {_TOPICS[rng.integers(len(_TOPICS))]}:"


def make_prompts(tokenizer, count: int, seed: int) -> list[list[int]]:
    """`count` prompts as token id lists, in turn a chat-formatted support question, an opening
    of prose and a plain-text request."""
    rng = np.random.default_rng(seed)
    prompts = []
    for i in range(count):
        if i % 3 == 0:
            text = tokenizer.apply_chat_template(support_messages(rng), tokenize=False,
                                                 add_generation_prompt=True)
        elif i % 3 == 1:
            text = _OPENINGS[rng.integers(len(_OPENINGS))]
        else:
            text = request(rng)
        prompts.append(tokenizer(text, add_special_tokens=False)["input_ids"])
    return prompts
