"""Page styles. Every page: contrast and focus rings a reader can see, words for screen readers
only, the code's colours, and smaller chart labels on a phone. Instructor mode: large type and a
wide page, with the sidebar tucked away, and its way out."""
import streamlit as st

from . import focus, keys, projector
from .url_state import ON_WORDS

# the panel titles of steps 1 and 2 (four and five panels side by side, titles of two and three
# short lines) and step 4's three two-line titles, which would run into each other on a phone:
# step 4's, and in instructor mode steps 1 and 2's (elsewhere a phone shows those two charts'
# copies in rows of two, keyed __phone, whose titles have room)
_PHONE_PANEL_TITLES = """\
  .st-key-verify .annotation-text, .st-key-correct .annotation-text { font-size: 11px !important; }
  .st-key-draft .annotation-text { font-size: 12px !important; }"""

_PRESENT_CSS = """
<style>
/* sized for a 1280-pixel projector, and grown with a wider one (1920 pixels: 27 px), which
   shows the same page on the same screen; the charts grow by as much, up to what the screen's
   height allows (ui/projector.py), whose reporter takes no room */
.st-key-screen_growth_box { display: none; }
html, body, [data-testid="stAppViewContainer"] { font-size: max(TYPE_PXpx, TYPE_VWvw); }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li,
[data-testid="stMarkdownContainer"] .tokens { font-size: 1.3rem; }
/* the thread's customer message, the first line the class reads (a div: see display.plain_text) */
[data-testid="stChatMessage"] [dir="auto"] { font-size: 1.3rem; }
/* captions hold the charts' text alternatives and the pages' subtitles: smaller, not small, and
   darker than on a screen, for the back of a room */
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { font-size: 1.15rem !important; }
[data-testid="stCaptionContainer"] { opacity: 0.9 !important; }
h1 { font-size: 3rem !important; } h2, h3 { font-size: 2.1rem !important; }
/* less blank space above the first line: a projector's height is short */
[data-testid="stMainBlockContainer"] { padding-top: 3.5rem; }
[data-testid="stSidebar"], [data-testid="stExpandSidebarButton"] { display: none; }
/* a zoomed projector: panel titles of a chart with five panels must not run together */
@media (max-width: 900px) { .js-plotly-plot .annotation-text { font-size: 15px !important; } }
/* on a phone, not even at that size (the rule every page has, again after the one above, which
   would otherwise win); and the token names under bars a few pixels apart, which the
   projector's type stood on end side by side, touching */
@media (max-width: 640px) {
PHONE_PANEL_TITLES
  .js-plotly-plot .xaxislayer-above text { font-size: 12px !important; }
}
/* the race's two lanes side by side: each side's name at least two lines tall, so that both
   texts start level where the pair's longer name wraps onto a second line in this large type,
   in a column under 23.5 times the page's type wide (the name, in type 1.3 times the page's, is
   23 of them); in a wider one, such as a 1080p projector's, it fits one line and so do both
   (a column narrow enough for three lines, just above a phone's width, still leaves them uneven) */
@media (min-width: 640px) {
  :is(.st-key-race_lanes, .st-key-last_race_lanes) [data-testid="stColumn"] { container-type: inline-size; }
  @container (max-width: 23.5em) {
    :is(.st-key-race_lanes, .st-key-last_race_lanes) [data-testid="stColumn"]
      [data-testid="stMarkdownContainer"] > p:first-child > [role="heading"]:first-child {
      display: inline-block; min-height: 2lh; }
  }
}
/* a metric, a slider's value and its ticks hold markdown too: size them after the rule above */
[data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p { font-size: 2.4rem; }
[data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"] p { font-size: 1rem; }
/* the code page: as large as 80 columns fit in the width, so its lines wrap only past that
   (a wrapped line restarts at the margin and hides the nesting); a monospace column is 0.6em */
[data-testid="stCode"] code { font-size: min(1rem, calc((100vw - 12rem) / 48)) !important; }
/* the tables of So what and the race: plain tables in instructor mode, read from the back of
   the room */
[data-testid="stTable"] th, [data-testid="stTable"] td { font-size: 0.9rem; }
/* a heading as dark as its cells: it names the symbols the text refers to (α, c, v) */
[data-testid="stTable"] th { color: inherit !important; }
/* code in a sentence (`make bench`) nearly as large as the sentence: Streamlit's 0.75em was
   19 pixels in 25-pixel text */
:is([data-testid="stMarkdownContainer"], [data-testid="stCaptionContainer"]) code:not(pre code) { font-size: 0.9em; }
/* a name split over two lines reads as two (the cell's text sits in an element of its own) */
[data-testid="stTable"] td, [data-testid="stTable"] td * { white-space: nowrap !important; }
/* a slider's value is what the class reads ("watch γ = 8"); its two end ticks may stay small */
[data-testid="stSliderThumbValue"] [data-testid="stMarkdownContainer"] p { font-size: 1.1rem; }
[data-testid="stSliderTickBar"] [data-testid="stMarkdownContainer"] p { font-size: 0.8rem; }
[data-testid="stTextArea"] textarea { font-size: 1.1rem; }
[data-testid="stSelectbox"] input { font-size: 1.1rem !important; }
/* the focus the last step's question takes is for a keyboard reader, not for the class: on the
   projector neither its ring nor the heading's link shows */
#step-question:focus { outline: none; }
#step-question:focus::after { display: none; }
#step-question:focus [data-testid="stHeaderActionElements"] { display: none; }
</style>
""".replace("PHONE_PANEL_TITLES", _PHONE_PANEL_TITLES).replace(
    "TYPE_PX", str(projector.PRESENT_TYPE_PX)).replace("TYPE_VW", str(projector.PRESENT_TYPE_VW))


_BASE_CSS = """
<style>
/* Streamlit fades captions to 3.9:1 against white; they hold every chart's text alternative,
   and small text needs 4.5:1 (this gives 7:1) */
[data-testid="stCaptionContainer"] { opacity: 0.8 !important; }
/* a page's sections are h2 under its h1 title, at the size of Streamlit's subheader */
[data-testid="stHeading"] h2 { font-size: 1.75rem; }
/* on a touch screen a table's toolbar (show, download, search, full screen) stays shown above
   the table, where it covered the end of the heading or summary before it: room for it there */
@media (hover: none) { [data-testid="stDataFrame"] { margin-top: 2.5rem; } }
/* the step's question takes the focus after Next onto the last step: marked, not boxed in black */
#step-question { position: relative; }
/* the ring within the heading's own height, where an outline around it would cross the lines
   above and below, and a little wider than its text, which an outline inside it would touch */
#step-question:focus { outline: none; }
#step-question:focus::after { content: ""; position: absolute; inset: 0 -0.5rem; pointer-events: none;
                              border: 2px solid #0072B2; border-radius: 4px; }
/* the main area takes the keyboard's focus itself (a scrolling box, which the arrow keys then
   scroll): ringed inside its edge, where the browser drew no ring at all */
[data-testid="stMain"]:focus-visible { outline: 2px solid #0072B2; outline-offset: -4px; }
/* what a screen reader is told of a result (screen_reader.announce): its element takes no room */
[data-testid="stElementContainer"]:has(.run-result) { display: none; }
/* words for screen readers only, such as whether a drafted token was kept */
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
           white-space: nowrap; }
/* the code page's comments carry this round's values (◀): the theme's grey italics reach only
   3.6:1 on the code block's background; this reaches over 7:1 */
[data-testid="stCode"] .token.comment { color: #4a4f5c !important; font-style: normal !important; }
/* and its other colours, the theme's hues darkened to 4.6:1 or more even on the theme's
   darkest grey, #f0f2f6 (the code block's own background is lighter; they reached 2.3 to 3.8:1) */
[data-testid="stCode"] .token.keyword, [data-testid="stCode"] .token.function { color: #186fbf !important; }
[data-testid="stCode"] .token.punctuation { color: #696c7a !important; }
[data-testid="stCode"] .token.operator { color: #af520e !important; }
[data-testid="stCode"] .token.string { color: #077d2b !important; }
[data-testid="stCode"] .token.boolean { color: #157d36 !important; }
[data-testid="stCode"] .token.number { color: #1c796c !important; }
/* the code page's round (ui/code_page.py): its notes beside their lines where the column holds
   90 columns of code (lessons/code_lesson.BESIDE_COLUMNS: a monospace column is 0.6em, 8.4 px at
   14 px, and the block's padding 32 px); elsewhere each note on a line of its own, wrapped, in
   type that fits about 78 columns, down to 12 px, so that few lines wrap and hide their nesting */
.st-key-round_code { container-type: inline-size; gap: 0; }  /* no gap for the hidden copy */
@container (min-width: 800px) { .st-key-round_code_apart { display: none; } }
@container (max-width: 799.98px) {
  .st-key-round_code_beside { display: none; }
  .st-key-round_code_apart code { font-size: clamp(12px, calc((100cqi - 32px) / 46.8), 14px) !important; }
}
/* a code block's copy button: Streamlit hides it until the pointer is over the block, out of
   the keyboard's reach and a touch screen's; here Tab reaches it, and it shows while it has the
   focus, and always where nothing can hover */
[data-testid="stCode"] > div:has([data-testid="stElementToolbarButton"]) { visibility: visible !important; }
[data-testid="stCode"] > div:has([data-testid="stElementToolbarButton"]):focus-within { opacity: 1 !important; }
@media (hover: none) { [data-testid="stCode"] > div:has([data-testid="stElementToolbarButton"]) { opacity: 1 !important; } }
/* a touch screen has no Ctrl+Enter to apply a text box's text: a tap outside the box applies it */
@media (hover: none) { [data-testid="InputInstructions"] { display: none; } }
/* a chart of four or more panels side by side (ui/display.py, _plot): in rows of two in a
   column narrower than 640 pixels, such as a phone's */
[class*="st-key-panels_"] { container-type: inline-size; gap: 0; }  /* no gap for the hidden copy */
@container (min-width: 640px) { [class*="st-key-panels_"] > [class*="__phone"] { display: none; } }
@container (max-width: 639.98px) { [class*="st-key-panels_"] > :not([class*="__phone"]) { display: none; } }
/* a table of measured numbers (ui/display.py, number_table): a sortable frame, and in a column
   narrower than 640 pixels, such as a phone's, a plain table whose every column is in view */
[class*="st-key-numbers_"]:not([class*="__phone"]) { container-type: inline-size; gap: 0; }
@container (min-width: 640px) { [class*="st-key-numbers_"] [class*="__phone"] { display: none; } }
@container (max-width: 639.98px) {
  [class*="st-key-numbers_"] > [data-testid="stElementContainer"]:has([data-testid="stDataFrame"]) { display: none; }
  [class*="st-key-numbers_"] [data-testid="stTable"] :is(th, td) { font-size: 11px; padding: 3px 4px; }
}
/* the keyboard's focus, plain to see: Streamlit's ring is a faint 2:1, and its page links and
   switches show focus by a tint of 1.1 to 1.2:1 only */
button:focus-visible, a:focus-visible, summary:focus-visible,
label:has(input[role="switch"]:focus-visible),
/* a select box, which Streamlit marks only while its list is open; and the boxes to type in and
   a slider's knob, which it marks by a 1 px border or a faint halo */
[data-testid="stSelectbox"] > div:has(input:focus-visible),
[data-testid="stTextAreaRootElement"]:has(textarea:focus-visible),
[data-testid="stTextInputRootElement"]:has(input:focus-visible),
[data-testid="stNumberInputContainer"]:has(input:focus-visible),
[data-testid="stSlider"] [role="group"] > div > div:has(> div > input[type="range"]:focus-visible) {
  outline: 2px solid #0072B2 !important; outline-offset: 2px; }
/* high contrast (forced colours) drops a switch's painted track and knob, which leaves only its
   label: draw them in the system's colours, the track filled while the switch is on */
@media (forced-colors: active) {
  label:has(> span > input[role="switch"]) > div:not([data-testid]) {
    forced-color-adjust: none; border: 2px solid CanvasText; background: Canvas; }
  label:has(> span > input[role="switch"]) > div:not([data-testid]) > div {
    forced-color-adjust: none; background: CanvasText; }
  label:has(> span > input[role="switch"]:checked) > div:not([data-testid]) { background: Highlight; }
  label:has(> span > input[role="switch"]:checked) > div:not([data-testid]) > div { background: HighlightText; }
  /* and a slider's track and knob, the knob greyed where the slider is disabled */
  [data-testid="stSlider"] [role="group"] > div > div:first-child {
    forced-color-adjust: none; background: GrayText; }
  [data-testid="stSlider"] [role="group"] > div > div:has(> div > input[type="range"]) {
    forced-color-adjust: none; background: CanvasText; }
  [data-testid="stSlider"] [role="group"] > div > div:has(> div > input[type="range"]:disabled) { background: GrayText; }
  /* and a progress bar (the walkthrough's steps, the race's scoreboard): its track outlined,
     its fill in the system's highlight */
  [data-testid="stProgressBarTrack"] { forced-color-adjust: none; border: 1px solid CanvasText; background: Canvas; }
  [data-testid="stProgressBarTrack"] > div { forced-color-adjust: none; background: Highlight; }
}
/* a page link's label on one line is cut at the screen's edge (step 5's links on a phone): wrap it */
[data-testid="stPageLink"] [data-testid="stMarkdownContainer"] p { white-space: normal; }
/* the key a button answers to (→ on Next, ← on Back), at the button's own contrast, not faded */
[data-testid^="stBaseButton"] kbd { opacity: 1 !important; }
/* Plotly sizes its labels in pixels whatever the screen: on a phone some panel titles would run
   into each other; other charts' titles and labels fit at their own size. A chart's table view
   in smaller type and closer cells, so that on a phone its last columns, which hold the
   outcome (step 3's u and verdict, step 4's drawn), fit beside the rest */
@media (max-width: 640px) {
PHONE_PANEL_TITLES
  [data-testid="stTableStyledTable"] :is(th, td) { font-size: 11px !important; padding: 3px 4px !important; }
}
</style>
""".replace("PHONE_PANEL_TITLES", _PHONE_PANEL_TITLES)


def apply_base_styles() -> None:
    st.html(_BASE_CSS)


# our script, not Streamlit's shortcut, leaves on Esc (see apply_presentation): the key still
# shows beside the Leave button, as Streamlit shows a shortcut
_ESC_SHOWN = """<style>
.st-key-leave_presenting button p::after { content: "Esc" / ", shortcut Esc"; margin-left: 0.5rem; font-size: 0.875em; }
</style>"""


def present_while_starting() -> None:
    """Instructor mode's styles from the first moment of a session that a link opens in it
    (`present=1`), while the libraries load on a fresh server (from seconds to a minute): without
    them a projector would show the ordinary layout, sidebar and all, until the page first draws.
    Only the link is read (as `ui.url_state` reads it), and only before the session has a
    setting of its own, which decides from then on."""
    if "present" in st.session_state:
        return
    values = st.query_params.get_all("present")
    if values and values[-1].lower() in ON_WORDS:
        st.html(_PRESENT_CSS)


def _leave() -> None:
    st.session_state.present = False
    st.session_state.left_presenting = True


def switched() -> None:
    """The Instructor mode switch's change: turned on, the switch is about to vanish with the
    sidebar, and the focus with it; the run gives it to the way out (see apply_presentation)."""
    st.session_state.entered_presenting = bool(st.session_state.get("present"))


def apply_presentation(on: bool, step_top: str | None = None) -> None:
    """Instructor mode's styles and its way out. Esc leaves it through a script of ours, not
    Streamlit's shortcut, which fires even from a text box (leaving instructor mode before the
    typed text reaches the app) and as Esc closes a help box: ours leaves on an Esc pressed
    outside the boxes with no help box open. `step_top`: the page draws Next and Back, which the
    keys press, and this CSS selector names a step's first line, to which Page Up reads back (see
    ui/keys.py)."""
    # the keys' script at the sidebar's foot (hidden in instructor mode): a script in the page
    # leaves a gap there
    with st.sidebar:
        st.html(keys.script({**keys.CLICKER, "Escape": keys.LEAVE}, step_top), unsafe_allow_javascript=True)
    if not on:
        if st.session_state.pop("left_presenting", False):
            # the Leave button is gone: the focus goes to the switch that brings it back
            with st.sidebar:
                focus.to_element(".st-key-present input")
        return
    st.html(_PRESENT_CSS + _ESC_SHOWN)
    projector.track()
    st.button(keys.LEAVE, key="leave_presenting", on_click=_leave, icon=":material/close:", type="tertiary")
    if st.session_state.pop("entered_presenting", False):
        # the switch is hidden with the sidebar: the focus goes to the button that brings it back
        focus.to_element(".st-key-leave_presenting button")
