//! Every text the UI marks with `@tr(...)` has a translation in every
//! bundled language, and each language names the game as its rule text does.

use std::collections::BTreeMap;
use std::path::Path;

const LANGUAGES: [&str; 4] = ["sk", "cs", "hr", "de"];

/// The strings of `@tr("...")` in a `.slint` source.
fn marked(source: &str) -> Vec<String> {
    source
        .split("@tr(\"")
        .skip(1)
        .map(|rest| {
            let mut text = String::new();
            let mut chars = rest.chars();
            while let Some(c) = chars.next() {
                match c {
                    '"' => break,
                    '\\' => text.extend(chars.next()),
                    c => text.push(c),
                }
            }
            text
        })
        .collect()
}

/// msgid → msgstr of a gettext `.po` file with one-line entries.
fn catalogue(po: &str) -> BTreeMap<String, String> {
    let unquote = |s: &str| {
        s.trim()
            .trim_matches('"')
            .replace("\\\"", "\"")
            .replace("\\\\", "\\")
    };
    let mut entries = BTreeMap::new();
    let mut id = None;
    for line in po.lines() {
        if let Some(rest) = line.strip_prefix("msgid ") {
            id = Some(unquote(rest));
        } else if let Some(rest) = line.strip_prefix("msgstr ")
            && let Some(id) = id.take().filter(|id: &String| !id.is_empty())
        {
            entries.insert(id, unquote(rest));
        }
    }
    entries
}

fn ui_strings() -> Vec<String> {
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui");
    let mut strings = Vec::new();
    for entry in std::fs::read_dir(ui).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "slint") {
            strings.extend(marked(&std::fs::read_to_string(path).unwrap()));
        }
    }
    strings.sort();
    strings.dedup();
    strings
}

fn po(language: &str) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("ui/translations")
        .join(language)
        .join("LC_MESSAGES/clovece.po");
    catalogue(&std::fs::read_to_string(path).unwrap())
}

#[test]
fn every_ui_text_is_translated_into_every_language() {
    let strings = ui_strings();
    assert!(strings.len() > 40, "found only {strings:?}");
    for language in LANGUAGES {
        let catalogue = po(language);
        for s in &strings {
            let translated = catalogue.get(s).map(String::as_str).unwrap_or("");
            assert!(
                !translated.is_empty(),
                "{language}: no translation of {s:?}"
            );
            // Every placeholder of the English text is used.
            for n in 0..3 {
                let placeholder = format!("{{{n}}}");
                assert_eq!(
                    s.contains(&placeholder),
                    translated.contains(&placeholder),
                    "{language}: {s:?} → {translated:?}"
                );
            }
        }
        for id in catalogue.keys() {
            assert!(
                strings.contains(id),
                "{language}: {id:?} is no longer in the UI"
            );
        }
    }
}

#[test]
fn each_language_names_the_game_as_its_rule_text_does() {
    let names = [
        ("sk", "Človeče, nehnevaj sa"),
        ("cs", "Člověče, nezlob se"),
        ("hr", "Čovječe ne ljuti se"),
        ("de", "Mensch ärgere Dich nicht"),
    ];
    for (language, name) in names {
        assert_eq!(po(language)["Don't Get Annoyed"], name, "{language}");
    }
}
