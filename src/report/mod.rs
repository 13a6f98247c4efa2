//! Renderers: table, CSV, JSON, Markdown, HTML.
