//! A spinner on stderr while slow work runs (a clone or fetch of a remote base, a helm
//! pull), when the caller asks for one: the CLI does on a terminal without `--quiet`, so
//! that piped or redirected stderr stays free of it. indicatif draws it, and clears its
//! line when the work ends, so nothing stays on the terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// A spinner shown until dropped (nothing when `enabled` is false).
pub struct Spinner(Option<ProgressBar>);

/// Starts a spinner saying `what`, when `enabled`.
pub fn spinner(enabled: bool, what: impl FnOnce() -> String) -> Spinner {
    if !enabled {
        return Spinner(None);
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
        bar.set_style(style);
    }
    bar.set_message(what());
    // Drawn at once, then kept moving while git or helm runs.
    bar.tick();
    bar.enable_steady_tick(Duration::from_millis(120));
    Spinner(Some(bar))
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
