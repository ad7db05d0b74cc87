//! SIGINT, SIGTERM and SIGHUP while kbuild writes: the plugins and helm runs in progress
//! are killed with their process groups, its temporary files and the temporary checkouts
//! of `diff --ref` are removed before the process dies, and it dies of the signal (exit
//! status 128+N to a shell), as it would without a handler. A killed process runs no
//! destructors, so the library records the programs and temporaries in the
//! `kbuild::output::Cleanup` the binary hands it ([`cleanup`], in every command's options),
//! the checkouts of `diff --ref` too, for this one handler.

use kbuild::output::Cleanup;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::sync::OnceLock;

/// The process's register of what to undo when killed: the binary's, handed to the library
/// in every command's options. Its first use starts the handler (a build that makes no
/// temporary and runs no program, the common and benchmarked case, starts no thread).
pub(crate) fn cleanup() -> &'static Cleanup {
    static CLEANUP: OnceLock<Cleanup> = OnceLock::new();
    CLEANUP.get_or_init(|| {
        let cleanup = Cleanup::new();
        cleanup.on_first_use(remove_temporaries_on_signal);
        cleanup
    })
}

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
                // Plugins, helm and git first (they may be writing into temporary
                // directories), then the temporaries; both registers stay locked until
                // the process ends, so no thread starts a program or creates or renames a
                // temporary file after this point.
                cleanup().kill_and_remove_all_for_exit();
                kbuild::refs::git::remove_checkouts_and_block(cleanup());
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                // A signal whose default is not to end the process (none of the three):
                // end it the same way.
                std::process::exit(128 + signal);
            }
        });
}
