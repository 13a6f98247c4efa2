//! The README documents every frame-definition rule id and every trust reason id frameprobe
//! can emit, and the metric-version policy.

mod common;

use frameprobe::analysis::definitions::{Definition, METRIC_VERSION, RULES};
use frameprobe::analysis::trust::REASON_IDS;

#[test]
fn readme_documents_every_rule_and_reason() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    for r in RULES {
        assert!(
            readme.contains(&format!("`{}`", r.id)),
            "README lacks rule {}",
            r.id
        );
    }
    for id in REASON_IDS {
        assert!(
            readme.contains(&format!("`{id}`")),
            "README lacks trust reason {id}"
        );
    }
    for d in Definition::ALL {
        assert!(readme.contains(d.label()), "README lacks {}", d.label());
    }
    assert!(readme.contains("## Metric version"));
    assert!(readme.contains(&format!("**{METRIC_VERSION}**")));
}
