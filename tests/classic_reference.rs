//! Conformance of the classic engine, through the notation of
//! `../shared/spec/notation.md`, with an independent reference.
//!
//! [`reference`] is a second implementation of the classic move rules and
//! turn flow, written from the rule texts (`../shared/seeds/004…` English,
//! `000…` Slovak) and the interpretations in `docs/rules.md` only, never from
//! `src/rules/classic.rs`. It is deliberately naive and slow: pieces stand on
//! absolute squares, a move walks one square at a time, and every obligation
//! is a filter over the plain list of moves, each quoting its sentence. The
//! tests generate random valid positions and random games and ask
//! `clovece::notation::{moves, replay}` (the code behind the command line)
//! for the same answers as the reference, exactly.

use clovece::notation;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Value, json};

mod reference {
    //! The classic rules on absolute squares, from the texts.

    use serde_json::{Value, json};

    /// Colours clockwise: "Colours sit clockwise in the order red, blue,
    /// green, yellow" (spec).
    pub const COLOURS: [&str; 4] = ["red", "blue", "green", "yellow"];

    /// "With two players the colours are red and green, with three players
    /// red, blue and green" (004), clockwise.
    pub const SEAT_SETS: [&[usize]; 3] = [&[0, 2], &[0, 1, 2], &[0, 1, 2, 3]];

    /// House-rule names in the order the notation writes them.
    pub const HOUSE_NAMES: [&str; 3] = ["compulsory-capture", "optional-bring-out", "no-jump-home"];

    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub enum Square {
        Base,
        Track(u8),
        /// The mover's own home square 1..=4 (H4 deepest).
        Home(u8),
    }

    impl Square {
        pub fn token(self) -> String {
            match self {
                Square::Base => "B".to_owned(),
                Square::Track(n) => format!("T{n}"),
                Square::Home(n) => format!("H{n}"),
            }
        }
    }

    /// The three house rules, all off by default.
    #[derive(Clone, Copy, Default, Debug)]
    pub struct House {
        pub compulsory_capture: bool,
        pub optional_bring_out: bool,
        pub no_jump_home: bool,
    }

    impl House {
        pub fn names(self) -> Vec<&'static str> {
            let on = [
                self.compulsory_capture,
                self.optional_bring_out,
                self.no_jump_home,
            ];
            HOUSE_NAMES
                .iter()
                .zip(on)
                .filter(|(_, on)| *on)
                .map(|(n, _)| *n)
                .collect()
        }
    }

    /// Start squares: red T0, blue T10, green T20, yellow T30 (spec).
    pub fn start(colour: usize) -> u8 {
        10 * colour as u8
    }

    /// "It has done a full lap on the square just behind its start" (spec).
    pub fn lap_end(colour: usize) -> u8 {
        (start(colour) + 39) % 40
    }

    /// The square one step further on for a piece of `colour`, or `None`
    /// past `H4`. From the lap end a piece turns into its own home row
    /// ("After a full lap of the board, a piece turns into its own four home
    /// squares"); any other colour passing that square goes on round.
    fn step(colour: usize, square: Square) -> Option<Square> {
        match square {
            Square::Base => None,
            Square::Track(t) if t == lap_end(colour) => Some(Square::Home(1)),
            Square::Track(t) => Some(Square::Track((t + 1) % 40)),
            Square::Home(h) if h < 4 => Some(Square::Home(h + 1)),
            Square::Home(_) => None,
        }
    }

    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub struct Move {
        pub from: Square,
        pub to: Square,
        pub captures: bool,
    }

    impl Move {
        pub fn token(self) -> String {
            format!("{}>{}", self.from.token(), self.to.token())
        }
    }

    #[derive(Clone, Debug)]
    pub struct Position {
        pub house: House,
        /// Seated colours, clockwise.
        pub seats: Vec<usize>,
        pub turn: usize,
        /// Four squares per seated colour; empty for the others.
        pub pieces: [Vec<Square>; 4],
    }

    impl Position {
        fn holds(&self, colour: usize, square: Square) -> bool {
            self.pieces[colour].contains(&square)
        }

        fn opponent_on(&self, square: Square) -> bool {
            matches!(square, Square::Track(_))
                && (0..4).any(|c| c != self.turn && self.holds(c, square))
        }

        pub fn has_won(&self, colour: usize) -> bool {
            self.pieces[colour]
                .iter()
                .all(|s| matches!(s, Square::Home(_)))
        }

        /// Where the piece of `colour` on `from` ends with `roll`, by the
        /// rules of a single piece's move, before any obligation.
        fn reach(&self, colour: usize, from: Square, roll: u8) -> Option<Square> {
            if from == Square::Base {
                // "A piece leaves its base for the start square only on a
                // six." It may not land on an own piece, so an own piece on
                // the start square keeps the others in base.
                let start = Square::Track(start(colour));
                return (roll == 6 && !self.holds(colour, start)).then_some(start);
            }
            let mut square = from;
            for n in 1..=roll {
                // "A piece may not go past the last home square."
                square = step(colour, square)?;
                // no-jump-home: "A piece in the home row may not jump over
                // another piece" (docs/rules.md: also while entering it).
                let passed = n < roll;
                if passed
                    && self.house.no_jump_home
                    && matches!(square, Square::Home(_))
                    && self.holds(colour, square)
                {
                    return None;
                }
            }
            // "You may not land on a square occupied by one of your own
            // pieces."
            (!self.holds(colour, square)).then_some(square)
        }

        /// Every piece's move for `roll`, before the obligations.
        fn candidates(&self, roll: u8) -> Vec<Move> {
            let colour = self.turn;
            self.pieces[colour]
                .iter()
                .filter_map(|&from| {
                    let to = self.reach(colour, from, roll)?;
                    Some(Move {
                        from,
                        to,
                        // "If your piece ends its move on a square occupied
                        // by an opponent's piece, the opponent's piece goes
                        // back to its base."
                        captures: self.opponent_on(to),
                    })
                })
                .collect()
        }

        /// The legal moves for `roll` (with duplicates from several base
        /// pieces).
        pub fn legal_moves(&self, roll: u8) -> Vec<Move> {
            let colour = self.turn;
            if self.has_won(colour) {
                return Vec::new();
            }
            let all = self.candidates(roll);
            let only = |keep: &dyn Fn(&Move) -> bool| -> Vec<Move> {
                all.iter().copied().filter(|m| keep(m)).collect()
            };
            // optional-bring-out: "After a six you do not have to bring a
            // piece out of your base, and you do not have to clear the start
            // square right away."
            if !self.house.optional_bring_out && self.holds(colour, Square::Base) {
                // "When you roll a six and a piece is waiting in your base,
                // you must bring it out. The exception is when one of your
                // own pieces is already standing on your start square."
                let bring_out = only(&|m| m.from == Square::Base);
                if !bring_out.is_empty() {
                    return bring_out;
                }
                // "As long as you have pieces in your base, the start square
                // must be cleared as soon as possible. If one of your pieces
                // stands on it, you must move that piece first, if the roll
                // allows it."
                let start = Square::Track(start(colour));
                let clear = only(&|m| m.from == start);
                if !clear.is_empty() {
                    return clear;
                }
            }
            // compulsory-capture: "If you can capture a piece, you must. This
            // does not apply when you have to bring a piece out or clear your
            // start square" (those returned above).
            if self.house.compulsory_capture {
                let captures = only(&|m| m.captures);
                if !captures.is_empty() {
                    return captures;
                }
            }
            all
        }

        /// The `moves` answer: tokens without duplicates, sorted as bytes.
        pub fn move_tokens(&self, roll: u8) -> Vec<String> {
            let set: std::collections::BTreeSet<String> =
                self.legal_moves(roll).iter().map(|m| m.token()).collect();
            set.into_iter().collect()
        }

        fn apply(&mut self, mv: Move) {
            let colour = self.turn;
            if mv.captures {
                for other in (0..4).filter(|&c| c != colour) {
                    for square in &mut self.pieces[other] {
                        if *square == mv.to {
                            *square = Square::Base;
                        }
                    }
                }
            }
            let piece = self.pieces[colour]
                .iter_mut()
                .find(|s| **s == mv.from)
                .expect("a legal move starts at an own piece");
            *piece = mv.to;
        }

        /// "If you have no piece on the track, you get three tries to roll a
        /// six. This also applies when some of your pieces stand in the home
        /// row where they can no longer move."
        fn has_three_tries(&self) -> bool {
            let own = &self.pieces[self.turn];
            let on_track = own.iter().any(|s| matches!(s, Square::Track(_)));
            let home_can_move = own.iter().any(|&s| {
                matches!(s, Square::Home(_))
                    && (1..=6).any(|r| self.reach(self.turn, s, r).is_some())
            });
            !on_track && !home_can_move
        }

        /// The next seated colour clockwise: "Turns pass clockwise too."
        fn pass(&mut self) {
            let i = self.seats.iter().position(|&c| c == self.turn).unwrap();
            self.turn = self.seats[(i + 1) % self.seats.len()];
        }

        /// The position as `replay` prints it (docs/rules.md): seats
        /// clockwise, each colour's pieces in travel order, house rules in
        /// their fixed order.
        pub fn output_json(&self) -> Value {
            let mut pieces = serde_json::Map::new();
            for &c in &self.seats {
                let mut own = self.pieces[c].clone();
                own.sort_by_key(|&s| match s {
                    Square::Base => 0,
                    Square::Track(t) => 1 + (t + 40 - start(c)) % 40,
                    Square::Home(h) => 40 + h,
                });
                let tokens: Vec<String> = own.iter().map(|s| s.token()).collect();
                pieces.insert(COLOURS[c].to_owned(), json!(tokens));
            }
            json!({
                "rules": "classic",
                "house": self.house.names(),
                "seats": self.seats.iter().map(|&c| COLOURS[c]).collect::<Vec<_>>(),
                "turn": COLOURS[self.turn],
                "pieces": pieces,
            })
        }
    }

    /// What the turn flow expects next.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub enum Due {
        Roll { attempt: u8 },
        Move { roll: u8 },
        Won,
    }

    /// A game in progress: the position and what is due.
    #[derive(Clone, Debug)]
    pub struct Flow {
        pub position: Position,
        pub due: Due,
    }

    impl Flow {
        /// A position read from the notation starts at try 1
        /// (docs/rules.md); one whose colour in turn is all home has ended.
        pub fn new(position: Position) -> Flow {
            let due = if position.has_won(position.turn) {
                Due::Won
            } else {
                Due::Roll { attempt: 1 }
            };
            Flow { position, due }
        }

        pub fn roll(&mut self, roll: u8) -> Result<(), String> {
            let Due::Roll { attempt } = self.due else {
                return Err(format!("a roll is not due ({:?})", self.due));
            };
            self.due = if !self.position.legal_moves(roll).is_empty() {
                Due::Move { roll }
            } else if attempt < 3 && self.position.has_three_tries() {
                // "If no six comes on the third try, the next player takes
                // over."
                Due::Roll {
                    attempt: attempt + 1,
                }
            } else {
                // "If no piece can move, the turn is lost and the die passes
                // to the next player" (even a six, docs/rules.md).
                self.position.pass();
                Due::Roll { attempt: 1 }
            };
            Ok(())
        }

        pub fn play(&mut self, token: &str) -> Result<(), String> {
            let Due::Move { roll } = self.due else {
                return Err(format!("a move is not due ({:?})", self.due));
            };
            let mv = self
                .position
                .legal_moves(roll)
                .into_iter()
                .find(|m| m.token() == token)
                .ok_or_else(|| format!("{token} is not legal"))?;
            self.position.apply(mv);
            self.due = if self.position.has_won(self.position.turn) {
                // "The game ends when the first player has all four pieces
                // in the home row."
                Due::Won
            } else if roll == 6 {
                // "If you rolled a six, roll again."
                Due::Roll { attempt: 1 }
            } else {
                self.position.pass();
                Due::Roll { attempt: 1 }
            };
            Ok(())
        }

        /// The `next` object of `replay`.
        pub fn next_json(&self) -> Value {
            let seat = COLOURS[self.position.turn];
            match self.due {
                Due::Roll { attempt } => json!({"seat": seat, "action": "roll", "try": attempt}),
                Due::Move { .. } => json!({"seat": seat, "action": "move"}),
                Due::Won => json!({"winner": seat}),
            }
        }

        /// The whole `replay` answer.
        pub fn answer(&self) -> Value {
            json!({"position": self.position.output_json(), "next": self.next_json()})
        }
    }
}

use reference::{COLOURS, Due, Flow, House, Position, SEAT_SETS, Square};

/// How a generated position is written as input: the notation accepts
/// seats, pieces and house rules in any order, and an omitted `house`.
#[derive(Clone, Copy, Debug)]
struct Spelling {
    rotate: usize,
    reverse: bool,
    omit_empty_house: bool,
}

fn spelling() -> impl Strategy<Value = Spelling> {
    (0usize..4, any::<bool>(), any::<bool>()).prop_map(|(rotate, reverse, omit_empty_house)| {
        Spelling {
            rotate,
            reverse,
            omit_empty_house,
        }
    })
}

impl Spelling {
    fn order<T: Clone>(&self, items: &[T]) -> Vec<T> {
        let mut out = items.to_vec();
        let len = out.len();
        if len > 0 {
            out.rotate_left(self.rotate % len);
        }
        if self.reverse {
            out.reverse();
        }
        out
    }

    /// The position as a notation document, in this spelling.
    fn write(&self, position: &Position) -> Value {
        let mut pieces = serde_json::Map::new();
        for &c in &self.order(&position.seats) {
            let tokens: Vec<String> = self
                .order(&position.pieces[c])
                .iter()
                .map(|s| s.token())
                .collect();
            pieces.insert(COLOURS[c].to_owned(), json!(tokens));
        }
        let seats: Vec<&str> = self
            .order(&position.seats)
            .iter()
            .map(|&c| COLOURS[c])
            .collect();
        let mut doc = json!({
            "rules": "classic",
            "seats": seats,
            "turn": COLOURS[position.turn],
            "pieces": pieces,
        });
        let house = self.order(&position.house.names());
        if !(house.is_empty() && self.omit_empty_house) {
            doc["house"] = json!(house);
        }
        doc
    }
}

fn house() -> impl Strategy<Value = House> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(c, o, n)| House {
        compulsory_capture: c,
        optional_bring_out: o,
        no_jump_home: n,
    })
}

/// A square drawn for a piece of `colour`, biased towards the places where
/// the rules have something to say: base, start squares (bringing out,
/// clearing, capture on a start square), the squares a six or less after a
/// start (a blocked start piece, pieces within reach of each other), the
/// last squares before the home row, and the home row.
fn draw_square(colour: usize, kind: u8, n: u8) -> Square {
    let start = |c: u8| reference::start(usize::from(c % 4));
    match kind {
        0..=2 => Square::Base,
        3 | 4 => Square::Track(start(n)),
        5 => Square::Track((reference::lap_end(colour) + 40 - n % 7) % 40),
        6 => Square::Track(reference::start(colour) + 1 + n % 6),
        7 => Square::Track(start(n) + n % 7),
        8 | 9 => Square::Track(n % 40),
        _ => Square::Home(1 + n % 4),
    }
}

/// Which part of the board the colour in turn is pushed towards, so that
/// rare situations come up often.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Anywhere,
    /// Three pieces drawn in the home row: home-row moves, wins, three
    /// tries with stuck home pieces.
    NearTheEnd,
    /// A piece in base, one on the start square and one a few squares after
    /// it: clearing the start square, a blocked start piece.
    StartSquareTaken,
}

/// Random valid positions (see [`settle`]).
fn position() -> impl Strategy<Value = Position> {
    (
        0usize..3,
        any::<Index>(),
        prop::collection::vec((0u8..12, 0u8..40), 16),
        house(),
        prop_oneof![
            2 => Just(Shape::Anywhere),
            1 => Just(Shape::NearTheEnd),
            1 => Just(Shape::StartSquareTaken),
        ],
    )
        .prop_map(|(set, turn, draws, house, shape)| {
            let seats = SEAT_SETS[set].to_vec();
            let turn = seats[turn.index(seats.len())];
            let mut drawn: [Vec<Square>; 4] = Default::default();
            for &c in &seats {
                drawn[c] = draws[4 * c..4 * c + 4]
                    .iter()
                    .map(|&(kind, n)| draw_square(c, kind, n))
                    .collect();
            }
            let own = &mut drawn[turn];
            let n = draws[4 * turn].1;
            match shape {
                Shape::Anywhere => {}
                Shape::NearTheEnd => {
                    for (i, square) in own.iter_mut().take(3).enumerate() {
                        *square = Square::Home(1 + (n >> i) % 4);
                    }
                }
                Shape::StartSquareTaken => {
                    let start = reference::start(turn);
                    own[0] = Square::Base;
                    own[1] = Square::Track(start);
                    own[2] = Square::Track(start + 1 + n % 6);
                }
            }
            settle(house, seats, turn, drawn)
        })
}

/// Makes drawn squares a valid position: every seated colour has four
/// pieces, no two own pieces share a square, no two colours share a track
/// square (a piece drawn onto a taken square goes to base instead; the
/// colour in turn is placed first), and only the colour in turn may have
/// all four pieces home (it has then won).
fn settle(house: House, seats: Vec<usize>, turn: usize, drawn: [Vec<Square>; 4]) -> Position {
    let mut pieces: [Vec<Square>; 4] = Default::default();
    let order = std::iter::once(turn).chain(seats.iter().copied().filter(|&c| c != turn));
    for c in order {
        for &square in &drawn[c] {
            let taken = square != Square::Base
                && (pieces[c].contains(&square)
                    || matches!(square, Square::Track(_))
                        && pieces.iter().any(|p| p.contains(&square)));
            pieces[c].push(if taken { Square::Base } else { square });
        }
    }
    let mut position = Position {
        house,
        seats,
        turn,
        pieces,
    };
    for c in position.seats.clone() {
        if c != turn && position.has_won(c) {
            position.pieces[c][0] = Square::Base;
        }
    }
    position
}

/// The engine's `moves` answer for a document.
fn engine_moves(doc: &Value) -> Value {
    let out = notation::moves(&doc.to_string())
        .unwrap_or_else(|e| panic!("the engine refused a valid position: {e}\n{doc}"));
    serde_json::from_str(&out).expect("moves prints JSON")
}

/// The engine's `replay` answer, or its error message.
fn engine_replay(doc: &Value) -> Result<Value, String> {
    notation::replay(&doc.to_string())
        .map(|out| serde_json::from_str(&out).expect("replay prints JSON"))
        .map_err(|e| e.to_string())
}

fn with(mut doc: Value, key: &str, value: Value) -> Value {
    doc[key] = value;
    doc
}

/// Asserts that the engine's legal moves for `position` and `roll` are the
/// reference's, exactly.
fn assert_same_moves(position: &Position, spelling: Spelling, roll: u8) {
    let doc = with(spelling.write(position), "roll", json!(roll));
    let expected = json!({"moves": position.move_tokens(roll)});
    assert_eq!(engine_moves(&doc), expected, "input {doc}");
}

/// One script step as JSON.
fn roll_step(roll: u8) -> Value {
    json!({"roll": roll})
}

fn move_step(token: &str) -> Value {
    json!({"move": token})
}

/// Plays a random script through the reference: `dice` supply the rolls
/// (the script ends when they run out or the game ends) and `picks` choose
/// among the legal moves. Returns the script and the flow after each step.
fn random_script(start: &Flow, dice: &[u8], picks: &[Index]) -> (Vec<Value>, Vec<Flow>) {
    let mut flow = start.clone();
    let mut dice = dice.iter();
    let mut picks = picks.iter().cycle();
    let mut script = Vec::new();
    let mut states = Vec::new();
    loop {
        match flow.due {
            Due::Won => break,
            Due::Roll { .. } => {
                let Some(&roll) = dice.next() else { break };
                flow.roll(roll).unwrap();
                script.push(roll_step(roll));
            }
            Due::Move { roll } => {
                let moves = flow.position.move_tokens(roll);
                let token = &moves[picks.next().unwrap().index(moves.len())];
                flow.play(token).unwrap();
                script.push(move_step(token));
            }
        }
        states.push(flow.clone());
    }
    (script, states)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// `moves` answers exactly the reference's legal moves for random valid
    /// positions and house rules, for every roll.
    #[test]
    fn legal_moves_match_the_reference(position in position(), spelling in spelling()) {
        for roll in 1..=6 {
            assert_same_moves(&position, spelling, roll);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// `replay` of a random script from a random position gives, after every
    /// prefix of the script, the reference's position and `next`.
    #[test]
    fn turn_flow_matches_the_reference(
        position in position(),
        spelling in spelling(),
        dice in prop::collection::vec(prop_oneof![1 => Just(6u8), 3 => 1u8..=6], 0..32),
        picks in prop::collection::vec(any::<Index>(), 1..8),
    ) {
        let start = Flow::new(position);
        let doc = spelling.write(&start.position);
        let (script, states) = random_script(&start, &dice, &picks);
        for len in 0..=script.len() {
            let expected = if len == 0 { &start } else { &states[len - 1] };
            let input = with(doc.clone(), "script", json!(script[..len]));
            let answer = engine_replay(&input)
                .unwrap_or_else(|e| panic!("refused: {e}\ninput {input}"));
            prop_assert_eq!(answer, expected.answer(), "input {}", input);
        }
    }

    /// `replay` refuses the first step the turn flow does not allow (a move
    /// when a roll is due, a roll when a move is due, a move that is not
    /// legal, any step after the end), naming its 0-based index.
    #[test]
    fn replay_refuses_the_first_step_the_flow_does_not_allow(
        position in position(),
        dice in prop::collection::vec(1u8..=6, 0..30),
        picks in prop::collection::vec(any::<Index>(), 1..8),
        cut in any::<Index>(),
        wrong in any::<Index>(),
    ) {
        let start = Flow::new(position);
        let (mut script, states) = random_script(&start, &dice, &picks);
        let index = cut.index(script.len() + 1);
        let flow = if index == 0 { &start } else { &states[index - 1] };
        let bad = wrong_step(flow, &wrong);
        script.truncate(index);
        script.push(bad.clone());
        let input = with(start.position.output_json(), "script", json!(script));
        let error = engine_replay(&input)
            .err()
            .unwrap_or_else(|| panic!("step {index} {bad} was accepted\ninput {input}"));
        prop_assert!(error.contains(&format!("step {index}")), "{error}\ninput {input}");
    }
}

/// A step the flow does not allow after `flow`.
fn wrong_step(flow: &Flow, pick: &Index) -> Value {
    let p = &flow.position;
    match flow.due {
        Due::Won => {
            if pick.index(2) == 0 {
                roll_step(1 + pick.index(6) as u8)
            } else {
                move_step("H4>H4")
            }
        }
        Due::Roll { .. } => {
            // Any move, even one that some roll would make legal.
            let from = p.pieces[p.turn][pick.index(4)];
            let to = Square::Track((pick.index(40)) as u8);
            move_step(&format!("{}>{}", from.token(), to.token()))
        }
        Due::Move { roll } => {
            let legal = p.move_tokens(roll);
            let mut illegal: Vec<String> = Vec::new();
            for from in &p.pieces[p.turn] {
                for to in (0..40)
                    .map(Square::Track)
                    .chain((1..=4).map(Square::Home))
                    .chain([Square::Base])
                {
                    let token = format!("{}>{}", from.token(), to.token());
                    if !legal.contains(&token) {
                        illegal.push(token);
                    }
                }
            }
            match pick.index(3) {
                0 => roll_step(roll),
                _ => move_step(&illegal[pick.index(illegal.len())]),
            }
        }
    }
}

/// Whole random games from the opening position, one in every seat set and
/// house-rule combination: the engine follows the reference step by step.
#[test]
fn whole_games_match_the_reference() {
    use rand_chacha::ChaCha8Rng;
    use rand_chacha::rand_core::SeedableRng;

    let mut rng = ChaCha8Rng::seed_from_u64(0xC10C_E4CE);
    for seats in SEAT_SETS {
        for bits in 0..8u8 {
            let house = House {
                compulsory_capture: bits & 1 != 0,
                optional_bring_out: bits & 2 != 0,
                no_jump_home: bits & 4 != 0,
            };
            let mut pieces: [Vec<Square>; 4] = Default::default();
            for &c in seats {
                pieces[c] = vec![Square::Base; 4];
            }
            let opening = Position {
                house,
                seats: seats.to_vec(),
                turn: 0,
                pieces,
            };
            play_whole_game(opening, &mut rng);
        }
    }
}

/// Plays a random game to its end with the reference, checking the
/// engine's `moves` whenever a move is due. The script is sent to `replay`
/// in pieces that end where a fresh turn starts (try 1), each replayed
/// from the engine's own previous answer, so the printed position is also
/// checked to read back as the same game.
fn play_whole_game(opening: Position, rng: &mut rand_chacha::ChaCha8Rng) {
    use rand_chacha::rand_core::Rng;

    const PIECE: usize = 24;
    let mut flow = Flow::new(opening);
    let mut doc = flow.position.output_json();
    let mut piece = Vec::new();
    for _ in 0..20_000 {
        match flow.due {
            Due::Won => break,
            Due::Roll { .. } => {
                let roll = 1 + (rng.next_u32() % 6) as u8;
                flow.roll(roll).unwrap();
                piece.push(roll_step(roll));
            }
            Due::Move { roll } => {
                let moves = flow.position.move_tokens(roll);
                let query = with(flow.position.output_json(), "roll", json!(roll));
                assert_eq!(engine_moves(&query), json!({"moves": moves}), "{query}");
                let token = &moves[rng.next_u32() as usize % moves.len()];
                flow.play(token).unwrap();
                piece.push(move_step(token));
            }
        }
        let fresh = matches!(flow.due, Due::Roll { attempt: 1 });
        if fresh && piece.len() >= PIECE || flow.due == Due::Won {
            let input = with(doc, "script", json!(piece));
            let answer =
                engine_replay(&input).unwrap_or_else(|e| panic!("refused: {e}\ninput {input}"));
            assert_eq!(answer, flow.answer(), "input {input}");
            doc = answer["position"].clone();
            piece.clear();
        }
    }
    assert_eq!(flow.due, Due::Won, "a random game ends");
}

/// The reference agrees with the spec's own example.
#[test]
fn reference_answers_the_spec_example() {
    let mut pieces: [Vec<Square>; 4] = Default::default();
    pieces[0] = vec![
        Square::Base,
        Square::Track(0),
        Square::Track(17),
        Square::Home(2),
    ];
    pieces[2] = vec![Square::Base, Square::Base, Square::Base, Square::Track(24)];
    let mut position = Position {
        house: House {
            compulsory_capture: true,
            optional_bring_out: true,
            no_jump_home: true,
        },
        seats: vec![0, 2],
        turn: 0,
        pieces,
    };
    assert_eq!(position.move_tokens(6), ["T0>T6", "T17>T23"]);
    position.house = House::default();
    assert_eq!(position.move_tokens(6), ["T0>T6"]);
}

/// The reference's reading of a (valid) notation document.
fn read(doc: &Value) -> Position {
    let colour = |name: &Value| COLOURS.iter().position(|c| name == c).unwrap();
    let square = |token: &Value| {
        let token = token.as_str().unwrap();
        let number = || token[1..].parse().unwrap();
        match &token[..1] {
            "B" => Square::Base,
            "T" => Square::Track(number()),
            _ => Square::Home(number()),
        }
    };
    let names: Vec<&str> = doc["house"]
        .as_array()
        .map(|a| a.iter().map(|n| n.as_str().unwrap()).collect())
        .unwrap_or_default();
    let mut seats: Vec<usize> = doc["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(colour)
        .collect();
    seats.sort_unstable();
    let mut pieces: [Vec<Square>; 4] = Default::default();
    for (name, places) in doc["pieces"].as_object().unwrap() {
        pieces[colour(&json!(name))] = places.as_array().unwrap().iter().map(square).collect();
    }
    Position {
        house: House {
            compulsory_capture: names.contains(&"compulsory-capture"),
            optional_bring_out: names.contains(&"optional-bring-out"),
            no_jump_home: names.contains(&"no-jump-home"),
        },
        seats,
        turn: colour(&doc["turn"]),
        pieces,
    }
}

/// A red-and-green position with these house rules and pieces, red to act.
fn red_green(house: &[&str], red: [&str; 4], green: [&str; 4]) -> Value {
    json!({"rules": "classic", "house": house, "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": red, "green": green}})
}

/// Asserts that the reference and the engine both answer `expected`.
fn assert_moves(doc: &Value, roll: u8, expected: &[&str]) {
    assert_eq!(read(doc).move_tokens(roll), expected, "reference, {doc}");
    let query = with(doc.clone(), "roll", json!(roll));
    assert_eq!(
        engine_moves(&query),
        json!({"moves": expected}),
        "engine, {query}"
    );
}

/// Asserts that the reference and the engine both answer `next` after
/// `script`, and the same position.
fn assert_next(doc: &Value, script: Value, next: Value) {
    let mut flow = Flow::new(read(doc));
    for step in script.as_array().unwrap() {
        match (&step["roll"], &step["move"]) {
            (Value::Number(n), _) => flow.roll(n.as_u64().unwrap() as u8).unwrap(),
            (_, Value::String(m)) => flow.play(m).unwrap(),
            _ => unreachable!("a roll or a move"),
        }
    }
    assert_eq!(flow.next_json(), next, "reference, {doc} {script}");
    let input = with(doc.clone(), "script", script);
    assert_eq!(engine_replay(&input), Ok(flow.answer()), "engine, {input}");
}

// Hand-computed positions for the points where docs/rules.md chooses
// between readings of the texts; the random tests above cover the rest.

#[test]
fn clearing_the_start_square_applies_to_every_roll() {
    let doc = red_green(&[], ["B", "T0", "T10", "H1"], ["B", "B", "B", "B"]);
    assert_moves(&doc, 3, &["T0>T3"]);
}

#[test]
fn a_blocked_start_piece_frees_the_other_pieces() {
    let doc = red_green(&[], ["B", "T0", "T3", "T6"], ["B", "B", "B", "B"]);
    assert_moves(&doc, 3, &["T6>T9"]);
    // A six neither brings a piece out nor moves the start piece.
    assert_moves(&doc, 6, &["T3>T9", "T6>T12"]);
}

#[test]
fn compulsory_capture_applies_when_the_start_piece_is_blocked() {
    let doc = red_green(
        &["compulsory-capture"],
        ["B", "T0", "T6", "T20"],
        ["T26", "B", "B", "B"],
    );
    assert_moves(&doc, 6, &["T20>T26"]);
}

#[test]
fn compulsory_capture_gives_way_to_bringing_out_and_clearing() {
    let house = ["compulsory-capture"];
    let doc = red_green(&house, ["B", "B", "T5", "H1"], ["T11", "B", "B", "B"]);
    assert_moves(&doc, 6, &["B>T0"]);
    let doc = red_green(&house, ["B", "T0", "T5", "H1"], ["T8", "B", "B", "B"]);
    assert_moves(&doc, 3, &["T0>T3"]);
}

#[test]
fn a_capturing_bring_out_is_compulsory_with_optional_bring_out() {
    let both = ["compulsory-capture", "optional-bring-out"];
    let doc = red_green(&both, ["B", "B", "B", "T5"], ["T0", "B", "B", "B"]);
    assert_moves(&doc, 6, &["B>T0"]);
    let doc = red_green(&both[1..], ["B", "B", "B", "T5"], ["T0", "B", "B", "B"]);
    assert_moves(&doc, 6, &["B>T0", "T5>T11"]);
}

#[test]
fn no_jump_home_also_bars_jumping_while_entering_the_home_row() {
    let pieces = (["B", "B", "T38", "H2"], ["B", "B", "B", "B"]);
    assert_moves(&red_green(&[], pieces.0, pieces.1), 4, &["T38>H3"]);
    assert_moves(&red_green(&["no-jump-home"], pieces.0, pieces.1), 4, &[]);
}

#[test]
fn an_opponent_on_its_own_start_square_is_captured() {
    let doc = red_green(&[], ["T16", "H1", "H2", "H3"], ["T20", "B", "B", "B"]);
    assert_moves(&doc, 4, &["T16>T20"]);
    assert_next(
        &doc,
        json!([{"roll": 4}, {"move": "T16>T20"}]),
        json!({"seat": "green", "action": "roll", "try": 1}),
    );
}

#[test]
fn a_six_that_cannot_be_used_ends_the_turn() {
    let doc = red_green(&[], ["T38", "H2", "H3", "H4"], ["T25", "B", "B", "B"]);
    assert_moves(&doc, 6, &[]);
    assert_next(
        &doc,
        json!([{"roll": 6}]),
        json!({"seat": "green", "action": "roll", "try": 1}),
    );
}

#[test]
fn three_tries_only_when_no_home_piece_could_move() {
    let stuck = red_green(&[], ["B", "B", "H3", "H4"], ["T25", "B", "B", "B"]);
    assert_next(
        &stuck,
        json!([{"roll": 2}, {"roll": 5}]),
        json!({"seat": "red", "action": "roll", "try": 3}),
    );
    assert_next(
        &stuck,
        json!([{"roll": 2}, {"roll": 5}, {"roll": 1}]),
        json!({"seat": "green", "action": "roll", "try": 1}),
    );
    // H1 could move with a 1 (or, jumping, a 3), so a 2 ends the turn.
    let movable = red_green(&[], ["B", "B", "H1", "H3"], ["T25", "B", "B", "B"]);
    assert_next(
        &movable,
        json!([{"roll": 2}]),
        json!({"seat": "green", "action": "roll", "try": 1}),
    );
}

#[test]
fn three_tries_again_after_a_six_that_leaves_no_piece_on_the_track() {
    let doc = red_green(
        &["optional-bring-out"],
        ["B", "B", "T37", "H3"],
        ["T25", "B", "B", "B"],
    );
    assert_next(
        &doc,
        json!([{"roll": 6}, {"move": "T37>H4"}, {"roll": 1}]),
        json!({"seat": "red", "action": "roll", "try": 2}),
    );
}
