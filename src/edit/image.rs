//! `edit set image` arguments, read as kustomize reads them.

use super::edit_error;
use crate::error::Result;

/// kustomize's error for an argument it cannot read, listing the forms it takes.
const FORMS: &str = "invalid format of image, use one of the following options:
- <image>=<newimage>:<newtag>
- <image>=<newimage>@<digest>
- <image>=<newimage>:<newtag>@<digest>
- <image>=<newimage>
- <image>:<newtag>
- <image>:<newtag>@<digest>
- <image>@<digest>";

/// `*` as a new name, tag or digest keeps what the kustomization already has.
pub(super) const PRESERVE: &str = "*";

/// One `set image` argument: the image to match and what to set; empty strings are
/// fields the argument does not give (kustomize then removes them from the entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageArg {
    /// The image name kustomize matches (`name`).
    pub name: String,
    /// `newName`.
    pub new_name: String,
    /// `newTag`.
    pub new_tag: String,
    /// `digest`.
    pub digest: String,
}

impl ImageArg {
    /// Parses `name=newName:tag@digest` and its shorter forms.
    pub fn parse(arg: &str) -> Result<ImageArg> {
        // kustomize splits at the first `=` only: the rest is the new image.
        let (key, value) = match arg.split_once('=') {
            Some((k, v)) => (Some(k), v),
            None => (None, arg),
        };
        let (name, tag, digest) = split_image(value);
        // An argument that names an image and sets nothing (`nginx`) is an error.
        if name == arg {
            return Err(edit_error(FORMS));
        }
        Ok(match key {
            Some(key) => ImageArg {
                name: key.to_string(),
                new_name: name.to_string(),
                new_tag: tag.to_string(),
                digest: digest.to_string(),
            },
            None => ImageArg {
                name: name.to_string(),
                new_name: String::new(),
                new_tag: tag.to_string(),
                digest: digest.to_string(),
            },
        })
    }
}

/// kustomize's image split: name, tag and digest; a `:` or `@` before the first `/` is
/// part of the registry host (`localhost:5000/app:v1`).
fn split_image(image: &str) -> (&str, &str, &str) {
    let offset = match image.find('/') {
        Some(i) if i > 0 => i,
        _ => 0,
    };
    let search = &image[offset..];
    let at = search.find('@').map(|i| i + offset);
    let colon = search.find(':').map(|i| i + offset);
    match (colon, at) {
        (None, None) => (image, "", ""),
        (None, Some(d)) => (&image[..d], "", &image[d + 1..]),
        (Some(c), Some(d)) if d < c => (&image[..d], "", &image[d + 1..]),
        (Some(c), Some(d)) => (&image[..c], &image[c + 1..d], &image[d + 1..]),
        (Some(c), None) => (&image[..c], &image[c + 1..], ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(name: &str, new_name: &str, new_tag: &str, digest: &str) -> ImageArg {
        ImageArg {
            name: name.into(),
            new_name: new_name.into(),
            new_tag: new_tag.into(),
            digest: digest.into(),
        }
    }

    #[test]
    fn reads_every_form_kustomize_reads() {
        let p = |s| ImageArg::parse(s).unwrap();
        assert_eq!(p("node:8.15.0"), arg("node", "", "8.15.0", ""));
        assert_eq!(p("mysql=mariadb"), arg("mysql", "mariadb", "", ""));
        assert_eq!(
            p("postgres=eu.gcr.io/my-project/postgres:latest"),
            arg("postgres", "eu.gcr.io/my-project/postgres", "latest", "")
        );
        assert_eq!(p("alpine@sha256:abc"), arg("alpine", "", "", "sha256:abc"));
        assert_eq!(
            p("app=reg/app:v1@sha256:abc"),
            arg("app", "reg/app", "v1", "sha256:abc")
        );
        assert_eq!(
            p("localhost:5000/app:v1"),
            arg("localhost:5000/app", "", "v1", "")
        );
        assert_eq!(p("app=*:v2"), arg("app", "*", "v2", ""));
        assert_eq!(p("app:*"), arg("app", "", "*", ""));
    }

    #[test]
    fn an_image_without_change_is_an_error() {
        let e = ImageArg::parse("nginx").unwrap_err().to_string();
        assert!(e.starts_with("invalid format of image"), "{e}");
    }
}
