//! The player's settings, kept in one small JSON file in the platform's
//! data folder. Saving writes a temporary file beside it and renames it over
//! the old one, so a crash or a full disk leaves either the old settings or
//! the new ones, never half a file.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};

use super::choices::Choices;
use crate::rules::HouseRules;

/// The languages of the app. `System` follows the phone's locale.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    System,
    English,
    Slovak,
    Czech,
    Croatian,
    German,
}

impl Language {
    /// Every choice, in the order the settings screen lists them.
    pub const ALL: [Language; 6] = [
        Language::System,
        Language::English,
        Language::Slovak,
        Language::Czech,
        Language::Croatian,
        Language::German,
    ];

    /// The folder name of the bundled translation (`""` for English, the
    /// language of the `.slint` sources), or `None` to follow the locale.
    pub const fn translation(self) -> Option<&'static str> {
        match self {
            Language::System => None,
            Language::English => Some(""),
            Language::Slovak => Some("sk"),
            Language::Czech => Some("cs"),
            Language::Croatian => Some("hr"),
            Language::German => Some("de"),
        }
    }

    /// The bundled translation for a locale such as `sk-SK` or `de_AT.UTF-8`:
    /// its language part decides; any other language gets English.
    pub fn translation_for_locale(locale: &str) -> &'static str {
        let language = locale.split(['-', '_', '.', '@']).next().unwrap_or("");
        Language::ALL
            .into_iter()
            .filter_map(Language::translation)
            .find(|code| !code.is_empty() && code.eq_ignore_ascii_case(language))
            .unwrap_or("")
    }
}

/// The look of the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BoardTheme {
    #[default]
    Classic,
    Sea,
}

/// Everything the player sets once and keeps.
///
/// A value that does not read (a newer app's language, theme or rule set,
/// a number out of range) is taken at its default, and of one with fields
/// (the house rules, the setup choices) only the fields that do not read;
/// it costs none of the other settings: a player who tries a newer
/// version and goes back keeps their nickname and the rest. Settings a newer version added, which
/// this one does not know, are kept in the file by
/// [`SettingsFile::save`], for that version to find again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Empty until the player chooses one: the app then goes by the word
    /// for "Player" in the language it shows.
    #[serde(deserialize_with = "or_default")]
    pub nickname: String,
    #[serde(deserialize_with = "or_default")]
    pub language: Language,
    #[serde(deserialize_with = "or_default")]
    pub theme: BoardTheme,
    /// The house rules a new game starts with.
    #[serde(deserialize_with = "or_default")]
    pub house: HouseRules,
    /// The setup screens' last choices, offered again.
    #[serde(deserialize_with = "or_default")]
    pub choices: Choices,
}

/// The field's value, or its default where the value is of another kind.
/// Of a value with fields (the house rules; the setup choices, whose
/// `game` and `room` read so too, [`super::choices`]) each field that
/// reads is kept over the default's, so that one switch or choice a
/// newer version wrote costs none of the others.
pub(super) fn or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned + Serialize + Default,
{
    use serde_json::Value;
    let value = Value::deserialize(d)?;
    if let Ok(read) = serde_json::from_value(value.clone()) {
        return Ok(read);
    }
    let (Value::Object(fields), Ok(Value::Object(mut kept))) =
        (value, serde_json::to_value(T::default()))
    else {
        return Ok(T::default());
    };
    for (key, field) in fields {
        let before = kept.insert(key.clone(), field);
        if serde_json::from_value::<T>(Value::Object(kept.clone())).is_err() {
            match before {
                Some(before) => kept.insert(key, before),
                None => kept.remove(&key),
            };
        }
    }
    Ok(serde_json::from_value(Value::Object(kept)).unwrap_or_default())
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            nickname: String::new(),
            language: Language::System,
            theme: BoardTheme::Classic,
            house: HouseRules::default(),
            choices: Choices::default(),
        }
    }
}

/// Settings that could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("no data folder for this user")]
    NoDataFolder,
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("{path} is not a settings file: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot save {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
}

impl SettingsError {
    /// Whether the file was read but is no settings file (not JSON, not
    /// text, another app's or version's): it is kept aside
    /// ([`SettingsFile::keep_damaged`]). A file that could not be read
    /// (no permission, the storage failing) is left where it is.
    pub fn damaged(&self) -> bool {
        match self {
            SettingsError::Parse { .. } => true,
            SettingsError::Read { source, .. } => source.kind() == io::ErrorKind::InvalidData,
            SettingsError::NoDataFolder | SettingsError::Write { .. } => false,
        }
    }
}

/// Where the settings live.
#[derive(Clone, Debug)]
pub struct SettingsFile {
    path: PathBuf,
}

impl SettingsFile {
    const NAME: &str = "settings.json";

    /// The settings file in `folder` (created on the first save).
    pub fn in_folder(folder: impl Into<PathBuf>) -> SettingsFile {
        SettingsFile {
            path: folder.into().join(Self::NAME),
        }
    }

    /// The settings file in the platform's data folder for clovece.
    pub fn platform() -> Result<SettingsFile, SettingsError> {
        let folder = crate::durable::default_dir().ok_or(SettingsError::NoDataFolder)?;
        Ok(SettingsFile::in_folder(&folder))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The saved settings; the defaults when nothing was saved yet.
    pub fn load(&self) -> Result<Settings, SettingsError> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Settings::default()),
            Err(source) => {
                return Err(SettingsError::Read {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        serde_json::from_str(&text).map_err(|source| SettingsError::Parse {
            path: self.path.clone(),
            source,
        })
    }

    /// Moves a file that [`SettingsFile::load`] found damaged out of the
    /// way of the next save, to `settings.json.damaged` beside it, so that
    /// the player's settings in it are not lost (a newer app's file can
    /// still be read there by hand, or by that app): where it went. A
    /// file kept earlier stays; this one gets the first free name of
    /// `settings.json.damaged.2`, `.3` and so on.
    pub fn keep_damaged(&self) -> io::Result<PathBuf> {
        /// More files kept than this is no player's history but a loop.
        const MOST: u32 = 100;
        let kept = (1..=MOST)
            .map(|n| match n {
                1 => self.path.with_extension("json.damaged"),
                n => self.path.with_extension(format!("json.damaged.{n}")),
            })
            .find(|kept| !kept.exists())
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{MOST} damaged settings files are kept already"),
                )
            })?;
        fs::rename(&self.path, &kept)?;
        Ok(kept)
    }

    /// Saves `settings` crash-safely ([`crate::durable::replace`]), over
    /// the file's JSON as it is: what this version does not know, at any
    /// depth (a newer version's setting, or one inside the house rules),
    /// stays as that version wrote it.
    pub fn save(&self, settings: &Settings) -> Result<(), SettingsError> {
        let err = |source| SettingsError::Write {
            path: self.path.clone(),
            source,
        };
        let ours = serde_json::to_value(settings).map_err(|e| err(e.into()))?;
        let theirs = fs::read(&self.path)
            .ok()
            .and_then(|text| serde_json::from_slice(&text).ok());
        let merged = match theirs {
            Some(theirs) => overlay(theirs, ours),
            None => ours,
        };
        let json = serde_json::to_vec_pretty(&merged).map_err(|e| err(e.into()))?;
        let folder = self.path.parent().unwrap_or(Path::new("."));
        crate::durable::create_folder(folder)
            .and_then(|()| crate::durable::replace(&self.path, |file| file.write_all(&json)))
            .map_err(err)
    }
}

/// `over` written over `under`: an object's keys one by one, any other
/// value whole.
fn overlay(under: serde_json::Value, over: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match (under, over) {
        (Value::Object(mut under), Value::Object(over)) => {
            for (key, value) in over {
                let merged = match under.remove(&key) {
                    Some(old) => overlay(old, value),
                    None => value,
                };
                under.insert(key, merged);
            }
            Value::Object(under)
        }
        (_, over) => over,
    }
}

/// Settings changed and not saved yet. The app saves them a moment after
/// their last change (a nickname changes at every key, and each save
/// flushes the file and its folder, which on a phone's flash would make
/// typing lag), and at once when it goes to the background, where the
/// system may kill it without a word, or closes. Shared with the thread
/// that hears the app go to the background.
pub struct Unsaved {
    /// Where they are saved; none when the file could not be read (not
    /// damaged, [`SettingsError::damaged`]): the player's settings in it
    /// are not to be replaced by this run's defaults.
    file: Option<SettingsFile>,
    settings: Mutex<Option<Settings>>,
}

impl Unsaved {
    pub fn new(file: Option<SettingsFile>) -> Unsaved {
        Unsaved {
            file,
            settings: Mutex::new(None),
        }
    }

    /// `settings` are to be saved, in place of any earlier ones.
    pub fn put(&self, settings: Settings) {
        *self.lock() = Some(settings);
    }

    /// Saves the settings put since the last save, if any; a failure is
    /// logged (they apply all the same, only not kept). Under the lock, so
    /// that of two saves at once the newer settings are written last.
    pub fn save(&self) {
        let mut unsaved = self.lock();
        let (Some(settings), Some(file)) = (unsaved.take(), &self.file) else {
            return;
        };
        if let Err(e) = file.save(&settings) {
            eprintln!("clovece: {e}");
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Settings>> {
        self.settings.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("clovece-settings-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn missing_settings_are_the_defaults() {
        let file = SettingsFile::in_folder(folder("missing"));
        assert_eq!(file.load().unwrap(), Settings::default());
    }

    #[test]
    fn unsaved_settings_are_saved_once_the_newest_put() {
        let dir = folder("unsaved");
        let file = SettingsFile::in_folder(&dir);
        let unsaved = Unsaved::new(Some(file.clone()));
        unsaved.save();
        assert!(!dir.join(SettingsFile::NAME).exists(), "nothing put");
        for nickname in ["E", "Ev", "Eva"] {
            unsaved.put(Settings {
                nickname: nickname.into(),
                ..Settings::default()
            });
        }
        assert!(!dir.join(SettingsFile::NAME).exists(), "not at once");
        unsaved.save();
        assert_eq!(file.load().unwrap().nickname, "Eva");
        // Saved: a second save writes nothing over a newer file.
        file.save(&Settings::default()).unwrap();
        unsaved.save();
        assert_eq!(file.load().unwrap(), Settings::default());
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn settings_saved_nowhere_leave_the_file_as_it_is() {
        let dir = folder("nowhere");
        let file = SettingsFile::in_folder(&dir);
        let theirs = Settings {
            nickname: "Eva".into(),
            ..Settings::default()
        };
        file.save(&theirs).unwrap();
        // The file could not be read when the app started.
        let unsaved = Unsaved::new(None);
        unsaved.put(Settings::default());
        unsaved.save();
        assert_eq!(file.load().unwrap(), theirs);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn saved_settings_load_back_and_leave_no_temporary_file() {
        let dir = folder("roundtrip");
        let file = SettingsFile::in_folder(&dir);
        let settings = Settings {
            nickname: "Žofia".into(),
            language: Language::Slovak,
            theme: BoardTheme::Sea,
            house: HouseRules::CROATIAN,
            choices: crate::app::choices::Choices {
                room: crate::app::choices::RoomChoices {
                    players: 3,
                    ..Default::default()
                },
                ..Default::default()
            },
        };
        file.save(&settings).unwrap();
        file.save(&settings).unwrap();
        assert_eq!(file.load().unwrap(), settings);
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["settings.json"]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn values_a_newer_app_wrote_are_taken_at_their_defaults_and_cost_nothing_else() {
        let dir = folder("newer-values");
        fs::create_dir_all(&dir).unwrap();
        let file = SettingsFile::in_folder(&dir);
        let kept = Settings {
            nickname: "Eva".into(),
            language: Language::Slovak,
            theme: BoardTheme::Sea,
            ..Settings::default()
        };
        let newer = [
            ("choices", r#"{"room": {"players": 300, "rules": "ludo"}}"#),
            ("language", r#""hungarian""#),
            ("theme", r#""forest""#),
            ("house", r#"{"no_jump_home": "sometimes"}"#),
            ("nickname", "7"),
        ];
        for (field, value) in newer {
            let mut json: serde_json::Value = serde_json::to_value(&kept).unwrap();
            json[field] = serde_json::from_str(value).unwrap();
            fs::write(file.path(), json.to_string()).unwrap();
            let read = file.load().unwrap();
            let mut expected = kept.clone();
            match field {
                "choices" => expected.choices = Choices::default(),
                "language" => expected.language = Language::default(),
                "theme" => expected.theme = BoardTheme::default(),
                "house" => expected.house = HouseRules::default(),
                _ => expected.nickname = String::new(),
            }
            assert_eq!(read, expected, "{field}: {value}");
        }
        // One house rule that does not read costs none of the others.
        let mut json: serde_json::Value = serde_json::to_value(&kept).unwrap();
        json["house"] =
            serde_json::json!({"compulsory_capture": true, "no_jump_home": "sometimes"});
        fs::write(file.path(), json.to_string()).unwrap();
        let read = file.load().unwrap().house;
        assert!(read.compulsory_capture && !read.no_jump_home, "{read:?}");
        // Nor does one setup choice.
        let mut json: serde_json::Value = serde_json::to_value(&kept).unwrap();
        json["choices"] = serde_json::json!({
            "game": {"level": 2, "rules": "hoyhop"},
            "room": {"players": 3, "private": "maybe", "first": 2},
        });
        fs::write(file.path(), json.to_string()).unwrap();
        let read = file.load().unwrap().choices;
        let mut expected = Choices::default();
        expected.game.level = 2;
        (expected.room.players, expected.room.first) = (3, 2);
        assert_eq!(read, expected);
        fs::remove_dir_all(dir).unwrap();
    }

    /// Back from a newer version, a save keeps what that version added.
    #[test]
    fn settings_a_newer_app_added_are_saved_back_as_they_were() {
        let dir = folder("newer-settings");
        fs::create_dir_all(&dir).unwrap();
        let file = SettingsFile::in_folder(&dir);
        let added = r#"{"nickname": "Eva", "sound": false, "board": {"zoom": 2},
            "house": {"compulsory_capture": true, "optional_bring_out": false, "no_jump_home": false, "ghosts": true},
            "choices": {"game": {"players": 3, "bots": ["fox"]}, "room": 7}}"#;
        fs::write(file.path(), added).unwrap();
        let mut read = file.load().unwrap();
        assert_eq!(read.nickname, "Eva");
        read.nickname = "Ema".into();
        file.save(&read).unwrap();
        let saved: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(file.path()).unwrap()).unwrap();
        assert_eq!(saved["nickname"], "Ema");
        assert_eq!(saved["sound"], false);
        assert_eq!(saved["board"]["zoom"], 2);
        assert!(read.house.compulsory_capture);
        assert_eq!(saved["house"]["ghosts"], true, "{saved}");
        assert_eq!(saved["choices"]["game"]["bots"][0], "fox", "{saved}");
        assert_eq!(
            saved["choices"]["game"]["players"],
            read.choices.game.players
        );
        assert!(
            saved["choices"]["room"].is_object(),
            "ours where it read no other"
        );
        assert_eq!(file.load().unwrap(), read);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_damaged_settings_file_is_a_clear_error() {
        let dir = folder("damaged");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("settings.json"), "{\"nickname\": ").unwrap();
        let err = SettingsFile::in_folder(&dir).load().unwrap_err();
        assert!(err.to_string().contains("is not a settings file"), "{err}");
        assert!(err.damaged());
        fs::write(dir.join("settings.json"), b"{\"nickname\": \"\xff\"}").unwrap();
        let err = SettingsFile::in_folder(&dir).load().unwrap_err();
        assert!(err.damaged(), "not text: {err}");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_settings_file_that_cannot_be_read_now_is_not_taken_for_damaged() {
        let dir = folder("unreadable");
        // A folder where the file should be: reading it fails, as with no
        // permission or a failing storage.
        fs::create_dir_all(dir.join("settings.json")).unwrap();
        let err = SettingsFile::in_folder(&dir).load().unwrap_err();
        assert!(err.to_string().contains("cannot read"), "{err}");
        assert!(!err.damaged());
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn each_damaged_file_is_kept_without_replacing_one_kept_before() {
        let dir = folder("kept");
        fs::create_dir_all(&dir).unwrap();
        let file = SettingsFile::in_folder(&dir);
        for (n, text) in ["{\"nickname\": ", "[1, 2"].iter().enumerate() {
            fs::write(file.path(), text).unwrap();
            assert!(file.load().is_err());
            let kept = file.keep_damaged().unwrap();
            let name = ["settings.json.damaged", "settings.json.damaged.2"][n];
            assert_eq!(kept, dir.join(name));
            assert!(!file.path().exists());
        }
        assert_eq!(
            fs::read_to_string(dir.join("settings.json.damaged")).unwrap(),
            "{\"nickname\": "
        );
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn fields_missing_from_an_older_file_get_their_defaults() {
        let dir = folder("older");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("settings.json"), r#"{"nickname": "Eva"}"#).unwrap();
        let settings = SettingsFile::in_folder(&dir).load().unwrap();
        assert_eq!(settings.nickname, "Eva");
        assert_eq!(settings.theme, BoardTheme::Classic);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_locale_picks_a_bundled_translation_by_its_language() {
        assert_eq!(Language::translation_for_locale("sk-SK"), "sk");
        assert_eq!(Language::translation_for_locale("cs_CZ.UTF-8"), "cs");
        assert_eq!(Language::translation_for_locale("de-AT"), "de");
        assert_eq!(Language::translation_for_locale("hr"), "hr");
        assert_eq!(Language::translation_for_locale("fr-FR"), "");
        assert_eq!(Language::translation_for_locale(""), "");
    }
}
