//! What can go wrong with an external plugin (see the `plugin` module): finding it, being
//! allowed to run it, running it, and reading what it printed.

use std::fmt;
use std::path::PathBuf;

/// A plugin that could not be loaded or run: which one, and why.
#[derive(Clone, Debug)]
pub struct PluginError {
    /// The plugin as the user knows it: its config's kind and name, and the program or
    /// image it runs (`SopsGenerator 'secrets' (/home/u/.config/kustomize/plugin/...)`).
    pub plugin: String,
    /// What went wrong.
    pub problem: PluginProblem,
}

/// Why a plugin could not be loaded or run.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum PluginProblem {
    /// A flag that must be given before the plugin runs (`--enable-exec`, `--network`).
    NotEnabled {
        /// The flag.
        flag: &'static str,
        /// What the flag allows, for the message.
        why: &'static str,
    },
    /// `--allow-plugin` was given and names neither this plugin's kind nor its program.
    NotAllowed {
        /// The program path or image the plugin would run.
        runs: String,
        /// What would allow it.
        by: &'static str,
    },
    /// No plugin home directory exists (kustomize's list of places, with what each was).
    NoPluginHome {
        /// `(where, why looked there)`, in kustomize's order.
        tried: Vec<(String, String)>,
    },
    /// No executable at the plugin's place in the plugin home.
    Missing {
        /// Where the executable was expected.
        path: PathBuf,
    },
    /// A Go plugin (`Kind.so`): kbuild cannot load Go object code.
    GoPlugin {
        /// The `.so` file.
        path: PathBuf,
    },
    /// The file exists but has no execute permission.
    NotExecutable {
        /// The file.
        path: PathBuf,
    },
    /// The config's apiVersion or kind cannot name a program in the plugin home: a part
    /// that is not one plain path component (kbuild's check; kustomize joins them as
    /// they are, so `..` or an absolute kind leads outside its plugin home).
    UnsafeName {
        /// The config's apiVersion.
        api_version: String,
        /// The config's kind.
        kind: String,
        /// Which part is wrong: "group", "version" or "kind".
        part: &'static str,
        /// That part.
        value: String,
        /// Why it is refused.
        why: &'static str,
    },
    /// The plugin's program, its symlinks resolved, is outside the plugin home.
    OutsideHome {
        /// The program's place in the plugin home.
        path: PathBuf,
        /// Where it leads.
        resolved: PathBuf,
        /// The plugin home.
        home: PathBuf,
    },
    /// A container function's mount, environment entry or image that docker or podman
    /// could read as more than one value, or as an option (kbuild's check).
    UnsafeContainerArg {
        /// What it is ("mount dst", "envs entry", "image", …) and where it comes from.
        what: String,
        /// The value.
        value: String,
        /// Why it is refused.
        why: &'static str,
    },
    /// A container function's own `envs` names a variable of kbuild's environment (a bare
    /// `NAME`) that `-e` on the command line does not pass (kbuild's rule).
    EnvPassthrough {
        /// The variable.
        name: String,
    },
    /// The config is wrong for this kind of plugin (its function annotation, its args).
    BadConfig(String),
    /// No container runtime (docker, podman) on PATH for a container function.
    NoRuntime {
        /// The function's image.
        image: String,
    },
    /// The program could not be started.
    Spawn {
        /// The program.
        program: String,
        /// What the operating system said.
        msg: String,
    },
    /// The program ran longer than `--plugin-timeout` and was killed (with its process group).
    TimedOut {
        /// The limit, as given.
        limit: String,
    },
    /// The program exited, but a process it started outside its process group still held
    /// its output open when `--plugin-timeout` passed.
    OutputHeld {
        /// The limit, as given.
        limit: String,
    },
    /// The program printed more on stdout than kbuild reads (a bound derived from the
    /// output budget, at most 1 GiB); it was killed with its process group.
    TooMuchOutput {
        /// The bound, in bytes.
        limit: u64,
    },
    /// The program exited unsuccessfully.
    Failed {
        /// How it ended ("exit status: 1", "signal: 9 (SIGKILL)").
        status: String,
        /// What it printed on stderr (empty when it went to kbuild's stderr).
        stderr: String,
    },
    /// The program printed something that is not what the protocol asks for.
    BadOutput(String),
    /// A validator changed the resources it was given.
    ValidatorChanged(String),
    /// kbuild could not prepare the plugin's files (its temporary config file).
    Files(String),
}

impl PluginError {
    /// The error for the plugin described by `plugin`.
    pub fn new(plugin: impl Into<String>, problem: PluginProblem) -> PluginError {
        PluginError {
            plugin: plugin.into(),
            problem,
        }
    }

    /// What the user can do about it, when kbuild knows.
    pub fn hint(&self) -> Option<&'static str> {
        match self.problem {
            PluginProblem::NoPluginHome { .. } | PluginProblem::Missing { .. } => Some(
                "install the plugin at that path, or point KUSTOMIZE_PLUGIN_HOME at the directory holding <group>/<version>/<lowercase kind>/<Kind>",
            ),
            PluginProblem::NotExecutable { .. } => Some("make it executable (chmod +x)"),
            PluginProblem::NotEnabled { .. } => Some(
                "add the flag if you trust the kustomization: functions run with your permissions",
            ),
            PluginProblem::GoPlugin { .. } => Some(
                "rebuild the plugin as an executable (exec plugin) or a KRM function; kbuild cannot load Go plugins",
            ),
            PluginProblem::NotAllowed { .. } => Some(
                "add --allow-plugin with the plugin's kind (a program in the plugin home), the absolute path of an exec function's program, or a container function's image; or leave the plugin out",
            ),
            PluginProblem::UnsafeName { .. } => Some(
                "a plugin's apiVersion must be VERSION or GROUP/VERSION and its kind a plain name, none of them '.', '..' or holding '/', '\\' or control characters",
            ),
            PluginProblem::OutsideHome { .. } => Some(
                "install the program itself in the plugin home (copy it instead of linking to it from outside)",
            ),
            PluginProblem::UnsafeContainerArg { .. } => Some(
                "write mount types, sources and destinations without ',', '=', '\"' or control characters, environment names without '=', '-' at the start or control characters, and image names without a leading '-'",
            ),
            PluginProblem::NoRuntime { .. } => Some(
                "install docker or podman, or run the function as an exec function (exec: path:) with --enable-exec",
            ),
            PluginProblem::EnvPassthrough { .. } => Some(
                "if the function may see that variable, pass it with -e NAME (--env NAME); otherwise give it a value in the config (NAME=VALUE)",
            ),
            PluginProblem::TooMuchOutput { .. } => Some(
                "if output this large is expected, raise --max-output-bytes (BuildOptions::max_output_bytes)",
            ),
            PluginProblem::TimedOut { .. } => {
                Some("raise the limit with --plugin-timeout (e.g. --plugin-timeout 15m)")
            }
            _ => None,
        }
    }
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plugin = &self.plugin;
        match &self.problem {
            PluginProblem::NotEnabled { flag, why } => {
                write!(f, "plugin {plugin}: {why}: must specify {flag}")
            }
            PluginProblem::NotAllowed { runs, by } => write!(
                f,
                "plugin {plugin}: not in the --allow-plugin list (it would run {runs}; {by})"
            ),
            PluginProblem::NoPluginHome { tried } => {
                // kustomize's words, then where it looked.
                write!(f, "plugin {plugin}: unable to find plugin root - tried: ")?;
                let tried: Vec<String> = tried
                    .iter()
                    .map(|(dir, note)| format!("('{dir}'; {note})"))
                    .collect();
                f.write_str(&tried.join(", "))
            }
            PluginProblem::Missing { path } => write!(
                f,
                "plugin {plugin}: no executable at {} (nor Go object code at {}.so)",
                path.display(),
                path.display()
            ),
            PluginProblem::GoPlugin { path } => write!(
                f,
                "plugin {plugin}: {} is a Go plugin; kbuild does not load Go plugins",
                path.display()
            ),
            // kustomize's words.
            PluginProblem::NotExecutable { path } => write!(
                f,
                "plugin {plugin}: unexecutable plugin at: {}",
                path.display()
            ),
            PluginProblem::UnsafeName {
                api_version,
                kind,
                part,
                value,
                why,
            } => write!(
                f,
                "plugin {plugin}: apiVersion {api_version:?} and kind {kind:?} cannot name a program in the plugin home: the {part} {value:?} is not a plain path component ({why})"
            ),
            PluginProblem::OutsideHome {
                path,
                resolved,
                home,
            } => write!(
                f,
                "plugin {plugin}: {} resolves to {}, outside the plugin home {}",
                path.display(),
                resolved.display(),
                home.display()
            ),
            PluginProblem::UnsafeContainerArg { what, value, why } => write!(
                f,
                "plugin {plugin}: container function {what} {value:?} is refused: {why}"
            ),
            PluginProblem::EnvPassthrough { name } => write!(
                f,
                "plugin {plugin}: the container function's envs entry {name:?} would pass kbuild's own environment variable into the container, where the function could print it; only -e/--env {name} on kbuild's command line may pass it"
            ),
            PluginProblem::BadConfig(msg) => write!(f, "plugin {plugin}: {msg}"),
            PluginProblem::NoRuntime { image } => write!(
                f,
                "plugin {plugin}: container function image '{image}' needs a container runtime, but neither docker nor podman is on PATH"
            ),
            PluginProblem::Spawn { program, msg } => {
                write!(f, "plugin {plugin}: cannot run '{program}': {msg}")
            }
            PluginProblem::TimedOut { limit } => write!(
                f,
                "plugin {plugin}: still running after {limit} (--plugin-timeout); killed it and its process group"
            ),
            PluginProblem::OutputHeld { limit } => write!(
                f,
                "plugin {plugin}: exited, but a process it started outside its process group still held its output open after {limit} (--plugin-timeout)"
            ),
            PluginProblem::TooMuchOutput { limit } => write!(
                f,
                "plugin {plugin}: printed more than {limit} bytes, more than the output budget leaves room for; killed it and its process group"
            ),
            PluginProblem::Failed { status, stderr } => {
                write!(f, "plugin {plugin}: failed ({status})")?;
                let stderr = stderr.trim_end();
                if !stderr.is_empty() {
                    write!(f, ":\n{stderr}")?;
                }
                Ok(())
            }
            PluginProblem::BadOutput(msg) => write!(f, "plugin {plugin}: {msg}"),
            PluginProblem::ValidatorChanged(msg) => write!(
                f,
                "plugin {plugin}: validator shouldn't modify the resource map: {msg}"
            ),
            PluginProblem::Files(msg) => write!(f, "plugin {plugin}: {msg}"),
        }
    }
}
