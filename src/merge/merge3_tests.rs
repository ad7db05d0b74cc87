use super::*;

fn y(text: &str) -> Option<Node> {
    crate::yaml::parse::parse_stream(text, "test")
        .expect("test YAML")
        .into_iter()
        .next()
}
