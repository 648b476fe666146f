//! Every text the UI marks with `@tr(...)` has a translation in every
//! bundled language, and each language names the game as its rule text does.

use std::collections::BTreeMap;
use std::path::Path;

const LANGUAGES: [&str; 4] = ["sk", "cs", "hr", "de"];

/// A marked text: its context (`@tr("context" => "text")`, as `msgctxt`)
/// and the text itself.
type Marked = (Option<String>, String);

/// The quoted string at the start of `rest` (after its opening quote), and
/// what follows its closing quote.
fn quoted(rest: &str) -> (String, &str) {
    let mut text = String::new();
    let mut chars = rest.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (text, &rest[i + 1..]),
            '\\' => text.extend(chars.next().map(|(_, c)| c)),
            c => text.push(c),
        }
    }
    (text, "")
}

/// The texts of `@tr(...)` in a `.slint` source.
fn marked(source: &str) -> Vec<Marked> {
    source
        .split("@tr(\"")
        .skip(1)
        .map(|rest| {
            let (first, after) = quoted(rest);
            match after.trim_start().strip_prefix("=>") {
                Some(text) => {
                    let text = text.trim_start().strip_prefix('"').unwrap_or(text);
                    (Some(first), quoted(text).0)
                }
                None => (None, first),
            }
        })
        .collect()
}

/// (msgctxt, msgid) → msgstr of a gettext `.po` file with one-line entries.
fn catalogue(po: &str) -> BTreeMap<Marked, String> {
    let unquote = |s: &str| {
        s.trim()
            .trim_matches('"')
            .replace("\\\"", "\"")
            .replace("\\\\", "\\")
    };
    let mut entries = BTreeMap::new();
    let mut context = None;
    let mut id = None;
    for line in po.lines() {
        if let Some(rest) = line.strip_prefix("msgctxt ") {
            context = Some(unquote(rest));
        } else if let Some(rest) = line.strip_prefix("msgid ") {
            id = Some(unquote(rest));
        } else if let Some(rest) = line.strip_prefix("msgstr ") {
            let context = context.take();
            if let Some(id) = id.take().filter(|id: &String| !id.is_empty()) {
                entries.insert((context, id), unquote(rest));
            }
        }
    }
    entries
}

fn ui_strings() -> Vec<Marked> {
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

fn po(language: &str) -> BTreeMap<Marked, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("ui/translations")
        .join(language)
        .join("LC_MESSAGES/clovece-ui.po");
    catalogue(&std::fs::read_to_string(path).unwrap())
}

#[test]
fn every_ui_text_is_translated_into_every_language() {
    let strings = ui_strings();
    assert!(strings.len() > 40, "found only {strings:?}");
    for language in LANGUAGES {
        let catalogue = po(language);
        for marked in &strings {
            let s = &marked.1;
            let translated = catalogue.get(marked).map(String::as_str).unwrap_or("");
            assert!(
                !translated.is_empty(),
                "{language}: no translation of {marked:?}"
            );
            // Every placeholder of the English text is used, and no other.
            for n in 0..10 {
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
        let title = (None, "Don't Get Annoyed".to_owned());
        // Its last two words kept together on a line (a no-break space).
        let said = po(language)[&title].replace('\u{a0}', " ");
        assert_eq!(said, name, "{language}");
    }
}

#[test]
fn classic_and_sea_agree_with_the_rules_and_with_the_board() {
    // Slovak "pravidlá" (plural) and "hracia plocha" (feminine); Czech
    // "pravidla" (plural) and "hrací plán" (masculine); Croatian "ploča"
    // (feminine). "Sea" names a board beside "Classic": an adjective too.
    for (language, rules, board, sea) in [
        ("sk", "Klasické", "Klasická", "Morská"),
        ("cs", "Klasická", "Klasický", "Mořský"),
        ("hr", "Klasična", "Klasična", "Morska"),
    ] {
        let catalogue = po(language);
        let classic =
            |context: &str| catalogue[&(Some(context.to_owned()), "Classic".to_owned())].clone();
        assert_eq!(
            (classic("rules"), classic("board")),
            (rules.to_owned(), board.to_owned()),
            "{language}"
        );
        assert_eq!(catalogue[&(None, "Sea".to_owned())], sea, "{language}");
    }
}

/// Slovak and Czech typography: a one-letter word (a preposition or
/// conjunction) never ends a line, so a no-break space follows it.
#[test]
fn slovak_and_czech_keep_one_letter_words_with_the_next() {
    for language in ["sk", "cs"] {
        for text in po(language).values() {
            let mut word = String::new();
            for c in text.chars() {
                if c == ' ' {
                    assert!(
                        !matches!(
                            word.to_lowercase().as_str(),
                            "a" | "i" | "k" | "o" | "s" | "u" | "v" | "z"
                        ),
                        "{language}: a normal space after {word:?} in {text:?}"
                    );
                }
                if c.is_alphanumeric() {
                    word.push(c);
                } else {
                    word.clear();
                }
            }
        }
    }
}

/// The words of each language's rule text (../shared/seeds): Slovak
/// "figúrka" for a piece, "domček" for the base in the corner, "cieľ" for
/// home; and a phone is "telefón", "telefon" or "telefon", not a device.
#[test]
fn the_game_is_told_in_the_words_of_its_rule_texts() {
    let sk = po("sk");
    for text in sk.values() {
        for foreign in ["panáčik", "Panáčik", "základň", "základn"] {
            assert!(!text.contains(foreign), "sk: {foreign:?} in {text:?}");
        }
    }
    let said = |id: &str| sk[&(None, id.to_owned())].replace('\u{a0}', " ");
    assert_eq!(said("{0} base"), "{0}: domček");
    assert_eq!(said("{0} home square {1}"), "{0}: cieľ, pole {1}");
    assert!(said("{0} piece on square {1}").contains("figúrka"));
    for (language, device) in [("sk", "zariaden"), ("cs", "zařízen"), ("hr", "uređaj")] {
        for text in po(language).values() {
            assert!(!text.contains(device), "{language}: {device:?} in {text:?}");
        }
    }
}
