//! Hostile input to the notation never panics: it is answered or refused
//! with an error.

use clovece::notation::{moves, replay};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value, json};

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

/// A Matfyz run as the notation writes it (`B:green>T0>T6`, `T7>T10*red`),
/// from tokens that may be off the board.
fn run() -> impl Strategy<Value = String> {
    (
        prop_oneof![colour().prop_map(|c| format!("B:{c}")), token()],
        prop::collection::vec(token(), 0..4),
        prop::option::of(colour()),
    )
        .prop_map(|(from, steps, recipient)| {
            let mut run = from;
            for step in steps {
                run.push('>');
                run.push_str(&step);
            }
            if let Some(recipient) = recipient {
                run.push('*');
                run.push_str(&recipient);
            }
            run
        })
}

/// Where a Matfyz piece stands: its seat's base or home, or the track.
#[derive(Debug, Clone, Copy)]
enum Spot {
    Base,
    Home,
    Track,
}

/// A field of a Matfyz document and something hostile to put there.
fn hostile_field() -> impl Strategy<Value = (&'static str, Value)> {
    let keys = vec!["seats", "turn", "bases", "homes", "track", "rolls", "done"];
    let values = prop_oneof![
        token().prop_map(Value::from),
        colour().prop_map(Value::from),
        (-2i64..9).prop_map(Value::from),
        prop::collection::vec(prop::option::of(colour()), 0..6).prop_map(Value::from),
        prop::collection::vec((token(), colour()), 0..4).prop_map(|pairs| {
            pairs
                .into_iter()
                .map(|(square, piece)| (square, Value::from(piece)))
                .collect::<Map<_, _>>()
                .into()
        }),
    ];
    (prop::sample::select(keys), values)
}

/// The seats of a game of `players`, as the notation lists them.
fn seats_of(players: usize) -> Vec<&'static str> {
    match players {
        2 => vec!["red", "green"],
        3 => vec!["red", "blue", "green"],
        _ => vec!["red", "blue", "green", "yellow"],
    }
}

/// Where the pieces of a game of `players` may stand, no two on one square:
/// the seat in turn, the seats, a spot for each piece, the track's 40
/// squares shuffled (pieces on the track take them in order) and each
/// seat's four home squares (0–3) shuffled (likewise).
type Placing = (
    &'static str,
    Vec<&'static str>,
    Vec<Spot>,
    Vec<u8>,
    Vec<Vec<usize>>,
);

fn placing(players: usize) -> impl Strategy<Value = Placing> {
    let seats = seats_of(players);
    (
        prop::sample::select(seats.clone()),
        Just(seats),
        prop::collection::vec(
            prop_oneof![Just(Spot::Base), Just(Spot::Home), Just(Spot::Track)],
            4 * players,
        ),
        Just((0..40).collect::<Vec<u8>>()).prop_shuffle(),
        prop::collection::vec(Just(vec![0usize, 1, 2, 3]).prop_shuffle(), players),
    )
}

/// A classic document that is mostly a position that can arise: four
/// pieces of each seated colour in its base, on its own home squares or on
/// the track, no two on one square; so that the engine, not only the
/// reader, answers its roll and script. One field is sometimes replaced by
/// something hostile.
fn classic_doc() -> impl Strategy<Value = Value> {
    (2usize..=4)
        .prop_flat_map(|players| {
            (
                placing(players),
                prop::option::weighted(0.9, 1i64..=6),
                prop::collection::vec(
                    prop_oneof![
                        (-1i64..8).prop_map(|r| json!({"roll": r})),
                        (token(), token()).prop_map(|(a, b)| json!({"move": format!("{a}>{b}")})),
                    ],
                    0..30,
                ),
                prop::option::weighted(
                    0.2,
                    (
                        prop::sample::select(vec!["seats", "turn", "pieces", "house", "roll"]),
                        prop_oneof![
                            token().prop_map(Value::from),
                            colour().prop_map(Value::from),
                            prop::collection::vec(token(), 0..6).prop_map(Value::from),
                        ],
                    ),
                ),
            )
        })
        .prop_map(
            |((turn, seats, spots, squares, mut home_orders), roll, script, hostile)| {
                let mut squares = squares.into_iter();
                let mut pieces = Map::new();
                for (seat, colour) in seats.iter().enumerate() {
                    let tokens: Vec<String> = spots[4 * seat..4 * seat + 4]
                        .iter()
                        .map(|spot| match spot {
                            Spot::Base => "B".to_owned(),
                            Spot::Home => format!("H{}", home_orders[seat].pop().unwrap() + 1),
                            Spot::Track => format!("T{}", squares.next().unwrap()),
                        })
                        .collect();
                    pieces.insert(colour.to_string(), json!(tokens));
                }
                let mut doc = json!({"rules": "classic", "seats": seats, "turn": turn,
                    "pieces": pieces, "roll": roll, "script": script});
                if let Some((key, value)) = hostile {
                    doc[key] = value;
                }
                doc
            },
        )
}

/// A Matfyz document (docs/matfyz.md) that is mostly a position that can
/// arise: each colour has one piece per player, held by distinct seats in
/// their base or home or standing on the track, no two on one square; so
/// that the engine, not only the reader, answers. One field is sometimes
/// replaced by something hostile.
fn matfyz_doc() -> impl Strategy<Value = Value> {
    const COLOURS: [&str; 4] = ["red", "blue", "green", "yellow"];
    (2usize..=4)
        .prop_flat_map(|players| {
            (
                placing(players),
                (0usize..3, prop::option::weighted(0.9, 1i64..=6)),
                prop::option::weighted(0.2, token()),
                prop::collection::vec(
                    prop_oneof![
                        (-1i64..8).prop_map(|r| json!({"roll": r})),
                        run().prop_map(|r| json!({"move": r})),
                    ],
                    0..30,
                ),
                prop::option::weighted(0.2, hostile_field()),
            )
        })
        .prop_map(
            |((turn, seats, spots, squares, home_orders), (sixes, last), done, script, hostile)| {
                let mut bases = vec![Vec::new(); seats.len()];
                let mut homes = vec![vec![Value::Null; 4]; seats.len()];
                let mut track = Map::new();
                let (mut squares, mut home_squares) = (squares.into_iter(), home_orders);
                // Piece `k` of each colour is held by seat `k`, so no seat
                // holds two of one colour.
                for (piece, spot) in spots.into_iter().enumerate() {
                    let (colour, seat) = (COLOURS[piece / seats.len()], piece % seats.len());
                    match spot {
                        Spot::Base => bases[seat].push(colour),
                        Spot::Home => {
                            let square = home_squares[seat].pop().unwrap();
                            homes[seat][square] = Value::from(colour);
                        }
                        Spot::Track => {
                            let square = squares.next().unwrap();
                            track.insert(format!("T{square}"), Value::from(colour));
                        }
                    }
                }
                let by_seat = |values: Vec<Value>| -> Map<String, Value> {
                    seats.iter().map(|s| s.to_string()).zip(values).collect()
                };
                let mut rolls = vec![6; sixes];
                rolls.extend(last);
                let mut doc = json!({"rules": "matfyz", "seats": seats, "turn": turn,
                    "bases": by_seat(bases.into_iter().map(Value::from).collect()),
                    "homes": by_seat(homes.into_iter().map(Value::from).collect()),
                    "track": track, "rolls": rolls, "done": Vec::from_iter(done),
                    "script": script});
                if let Some((key, value)) = hostile {
                    doc[key] = value;
                }
                doc
            },
        )
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

    #[test]
    fn classic_positions_and_scripts_never_panic(doc in classic_doc()) {
        let _ = moves(&doc.to_string());
        let _ = replay(&doc.to_string());
    }

    #[test]
    fn arbitrary_matfyz_positions_and_scripts_never_panic(doc in matfyz_doc()) {
        let _ = moves(&doc.to_string());
        let _ = replay(&doc.to_string());
    }
}

/// The generated documents reach the engine: most are positions it
/// accepts, so the fuzzing above is not all refused by the reader.
#[test]
fn classic_and_matfyz_documents_are_mostly_positions_the_engine_takes() {
    fn accepted(strategy: impl Strategy<Value = Value>) -> usize {
        let mut runner = TestRunner::deterministic();
        (0..200)
            .filter(|_| {
                let doc = strategy.new_tree(&mut runner).unwrap().current();
                moves(&doc.to_string()).is_ok()
            })
            .count()
    }
    for (rules, accepted) in [
        ("classic", accepted(classic_doc())),
        ("matfyz", accepted(matfyz_doc())),
    ] {
        assert!(accepted >= 100, "{rules}: {accepted} of 200 accepted");
    }
}
