//! Compiles the Slint UI (`app.slint`) with its translations bundled
//! into the binary, so the app needs no files beside it.
//!
//! Debug builds (which the tests use) also carry the element information
//! that Slint's testing backend needs to find elements by their accessible
//! labels; release builds leave it out.

fn main() {
    let debug = std::env::var("PROFILE").is_ok_and(|p| p == "debug");
    let config = slint_build::CompilerConfiguration::new()
        .with_style("fluent-light".into())
        .with_bundled_translations("translations")
        .with_default_translation_context(slint_build::DefaultTranslationContext::None)
        .with_debug_info(debug);
    slint_build::compile_with_config("app.slint", config).expect("the Slint UI compiles");
}
