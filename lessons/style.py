"""One colour per quantity across the app (Okabe-Ito, safe for colour-blind viewers), and
token labels that are safe to show anywhere."""
from __future__ import annotations

import html

P_COLOR = "#0072B2"  # p, the target (Nimbus-large): blue
Q_COLOR = "#E69F00"  # q, the draft (Nimbus-mini): orange
OVERLAP_COLOR = "#009E73"  # min(p, q), the part of q that is kept: bluish green
RESIDUAL_COLOR = "#CC79A7"  # max(0, p - q) / Z, the leftover: reddish purple
REJECT_COLOR = "#6E6E6E"  # a rejected or unchecked draft: grey
U_COLOR = "#000000"  # the coin flip u: black

# the colour of a token is the colour of the distribution it was finally drawn from
ORIGIN_COLORS = {"accepted": OVERLAP_COLOR, "correction": RESIDUAL_COLOR, "bonus": P_COLOR,
                 "target": P_COLOR}
ORIGIN_LABELS = {"accepted": "accepted draft", "correction": "correction (from the residual)",
                 "bonus": "bonus (from p)", "target": "target-only"}
FONT = "Inter, Segoe UI, Helvetica, Arial, sans-serif"


def visible(text: str) -> str:
    """A token's text with its whitespace made visible: spaces as '␣', newlines as '↵'."""
    return text.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥") or "∅"


def token_label(text: str) -> str:
    """A token's visible text, HTML-escaped for charts and HTML blocks."""
    return html.escape(visible(text), quote=True)


def prob_text(x: float) -> str:
    """A probability for a sentence: two decimals, but never a misleading "0.00" for a token
    that was drawn or kept, so small values get three decimals or an upper bound."""
    x = float(x)
    if x == 0.0 or x >= 0.0095:
        return f"{x:.2f}"
    return f"{x:.3f}" if x >= 0.0005 else "< 0.001"
