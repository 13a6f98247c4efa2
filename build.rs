// Compiles the Perfetto trace schema subset in proto/ with a protoc taken from a crate, so a
// fresh machine needs nothing installed.
fn main() -> std::io::Result<()> {
    let protoc = protoc_bin_vendored::protoc_bin_path().expect("vendored protoc");
    std::env::set_var("PROTOC", protoc);
    println!("cargo:rerun-if-changed=proto");
    prost_build::Config::new().compile_protos(&["proto/perfetto_subset.proto"], &["proto"])
}
