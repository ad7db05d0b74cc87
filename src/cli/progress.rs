//! Progress on stderr for slow work (`render` of many kustomizations), on a terminal only:
//! silent when stderr is piped or redirected, with `--quiet`, or for a single item, and
//! never on stdout. indicatif draws it (and hides it when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A bar of `len` steps named `what`, or a hidden one when none should show.
pub(crate) fn bar(len: u64, what: &str, quiet: bool) -> ProgressBar {
    if quiet || len < 2 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{msg} {pos}/{len} [{bar:30}] {elapsed}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_string());
    // Drawn at once, not only after the first step.
    bar.tick();
    bar
}
