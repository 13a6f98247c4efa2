//! README's "Cause categories" table documents every category and every slice-name rule of
//! `analysis::causes::categories`, the one table they live in.

mod common;

use frameprobe::analysis::causes::categories::{CATEGORIES, RULES};

#[test]
fn readme_documents_every_cause_category_and_rule() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    let start = readme
        .find("#### Cause categories")
        .expect("README has a Cause categories section");
    let section = &readme[start..];
    let section = &section[..section[4..].find("\n### ").map_or(section.len(), |e| e + 4)];
    for c in CATEGORIES {
        assert!(
            section.contains(&format!("`{}`", c.id)),
            "README lacks category {}",
            c.id
        );
    }
    for r in RULES {
        assert!(
            section.contains(&format!("`{}`", r.glob)),
            "README lacks rule {} ({})",
            r.glob,
            r.category.id()
        );
    }
}
