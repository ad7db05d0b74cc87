//! SIGINT, SIGTERM and SIGHUP while kbuild writes: the plugins and helm runs in progress
//! are killed with their process groups, its temporary files and the temporary checkouts
//! of `diff --ref` are removed before the process dies, and it dies of the signal (exit
//! status 128+N to a shell), as it would without a handler. A killed process runs no
//! destructors, so the library keeps registers of all three (`kbuild::plugin`,
//! `kbuild::output::temp`, `kbuild::refs::git`) for this one handler.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// Starts the thread that waits for the signals. Installing it costs one thread; a process
/// that cannot install it (no threads left) runs without, as before.
pub(crate) fn remove_temporaries_on_signal() {
    // Called at start for commands that write files, and again when a build first makes a
    // temporary (a plugin's config, a helm or remote scratch directory): one thread.
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(start);
}

fn start() {
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // Plugins and helm first: they may be writing into temporary directories.
                kbuild::plugin::kill_running_for_exit();
                // Held until the process ends: no thread creates or renames a temporary
                // file after this point.
                let _held = kbuild::output::temp::remove_all_for_exit();
                kbuild::refs::git::remove_checkouts_and_block();
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                // A signal whose default is not to end the process (none of the three):
                // end it the same way.
                std::process::exit(128 + signal);
            }
        });
}
