//! Renderers for the analysis: tables for people, CSV/JSON/Markdown for machines and CI.

pub mod analyze_csv;
pub mod analyze_text;
pub mod html;
