//! Hostile input to the notation never panics: it is answered or refused
//! with an error.

use clovece::notation::{moves, replay};
use proptest::prelude::*;
use serde_json::json;

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("B".to_owned()),
        (0u32..45).prop_map(|n| format!("T{n}")),
        (0u32..6).prop_map(|n| format!("H{n}")),
        "[A-Za-z0-9>-]{0,5}",
    ]
}

fn colour() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("red".to_owned()),
        Just("blue".to_owned()),
        Just("green".to_owned()),
        Just("yellow".to_owned()),
        "[a-z]{0,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,200}") {
        let _ = moves(&text);
        let _ = replay(&text);
    }

    #[test]
    fn arbitrary_positions_and_scripts_never_panic(
        seats in prop::collection::vec(colour(), 0..5),
        turn in colour(),
        pieces in prop::collection::vec((colour(), prop::collection::vec(token(), 0..6)), 0..5),
        house in prop::collection::vec(prop_oneof![
            Just("compulsory-capture".to_owned()),
            Just("optional-bring-out".to_owned()),
            Just("no-jump-home".to_owned()),
            "[a-z-]{0,8}",
        ], 0..4),
        roll in -2i64..9,
        script in prop::collection::vec(prop_oneof![
            (-1i64..8).prop_map(|r| json!({"roll": r})),
            (token(), token()).prop_map(|(a, b)| json!({"move": format!("{a}>{b}")})),
        ], 0..30),
    ) {
        let pieces: serde_json::Map<String, serde_json::Value> =
            pieces.into_iter().map(|(c, p)| (c, json!(p))).collect();
        let doc = json!({"rules": "classic", "house": house, "seats": seats, "turn": turn,
            "pieces": pieces, "roll": roll, "script": script});
        let _ = moves(&doc.to_string());
        let _ = replay(&doc.to_string());
    }
}
