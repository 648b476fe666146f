//! A hostile phone: every kind of bad entry or message is refused with its
//! own error, nothing is appended, and nothing panics.

mod protocol_support;

use clovece::protocol::sim::{Config, Table};
use clovece::protocol::wire::MAX_MESSAGE;
use clovece::protocol::{
    Act, Auto, Certificate, Change, Colours, Control, DecodeError, Digest, Due, Entry, Kind,
    LogError, Message, Offered, Phone, PhoneError, Proof, Reveal, Signed, Transport, Vote,
};
use clovece::rules::{Colour, FlowError, Move, Seats};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use protocol_support::{
    Sent, acted_since, certified_gone, certified_gone_in, choice_for, phone_of, play_until,
    played_until, roll_due_for, table_until,
};
use std::sync::OnceLock;

const RED: Colour = Colour::Red;
const BLUE: Colour = Colour::Blue;
const GREEN: Colour = Colour::Green;

/// Offers `entry`, which no honest phone sends, and checks that it is
/// refused with nothing appended, blaming whoever sent it.
fn refused(table: &mut Table, entry: Entry) -> LogError {
    let error = offered_in_vain(table, entry);
    assert!(PhoneError::from(error.clone()).blames_sender(), "{error}");
    error
}

/// Offers `entry`, which an honest phone may pass on (it has it, but it
/// does not take the place here), and checks that it is refused with
/// nothing appended, without blaming whoever sent it.
fn lost(table: &mut Table, entry: Entry) -> LogError {
    let error = offered_in_vain(table, entry);
    assert!(!PhoneError::from(error.clone()).blames_sender(), "{error}");
    error
}

/// `phone` receives `entry` from `from`, which an honest phone may send:
/// a proof it wrote, a race it lost, or one of two acts a cheater signed
/// (docs/protocol.md: refused without blame, as an honest phone may pass
/// it on). It is taken, or refused without blaming the sender, whom the
/// transport would ban.
fn receive_unblamed(phone: &mut Phone, from: Colour, entry: &Entry, out: &mut Sent) {
    let message = Message::Entry(entry.clone()).encode();
    if let Err(error) = phone.receive(from, &message, out) {
        assert!(!error.blames_sender(), "{from} is blamed: {error}");
    }
}

fn offered_in_vain(table: &mut Table, entry: Entry) -> LogError {
    let before = (table.log().len(), table.log().head());
    let error = table.log_mut().offer(entry).unwrap_err();
    assert_eq!((table.log().len(), table.log().head()), before);
    error
}

#[test]
fn forged_signature_is_refused() {
    let mut table = table_until(roll_due_for(RED));
    let reveals = table.reveals().unwrap();
    let log = table.log();
    // Blue's key signing for red's seat.
    let forged = Entry::sign(
        table.signer(BLUE).unwrap(),
        log.game(),
        log.len(),
        log.head(),
        RED,
        Act::Roll(reveals),
    );
    assert_eq!(refused(&mut table, forged), LogError::BadSignature(RED));
    // A genuine signature over other content.
    let mut tampered = table.sign(RED, Act::Roll(reveals)).unwrap();
    let Kind::Player(signed) = &mut tampered.kind else {
        unreachable!()
    };
    signed.act = Act::Leave;
    assert_eq!(refused(&mut table, tampered), LogError::BadSignature(RED));
}

/// An act that could not take its place (a certificate holds it) is
/// refused by rank before its signature is checked: a hostile phone
/// sending copies of a losing act costs a hash each, not a signature check
/// or the computer's move.
#[test]
fn an_act_outranked_in_its_place_is_refused_before_it_is_checked() {
    let mut table = table_until(roll_due_for(RED));
    let reveals = table.reveals().unwrap();
    let log = table.log();
    let (at, prev) = (log.len(), log.head());
    let forged = Entry::sign(
        table.signer(BLUE).unwrap(),
        log.game(),
        at,
        prev,
        RED,
        Act::Roll(reveals),
    );
    let cert = table.certificate(Change::Gone(Colours::one(RED))).unwrap();
    table.log_mut().offer(cert).unwrap();
    assert_eq!(lost(&mut table, forged), LogError::Outranked { index: at });
}

#[test]
fn event_out_of_turn_is_refused() {
    let mut table = table_until(roll_due_for(RED));
    let reveals = table.reveals().unwrap();
    let out_of_turn = table.sign(BLUE, Act::Roll(reveals)).unwrap();
    assert_eq!(
        refused(&mut table, out_of_turn),
        LogError::NotYourTurn(BLUE)
    );
    // Nor may the computer roll for a player who is present.
    let computer = Entry {
        index: table.log().len(),
        prev: table.log().head(),
        kind: Kind::Computer(Auto::Roll(reveals)),
    };
    assert_eq!(refused(&mut table, computer), LogError::NotComputersTurn);
    // Nor may red move before rolling.
    let mv: Move = serde_json::from_str(r#"{"Classic":{"colour":"red","from":1,"to":4}}"#).unwrap();
    let early = table.sign(RED, Act::Move { mv, auto: false }).unwrap();
    assert_eq!(
        refused(&mut table, early),
        LogError::Flow(FlowError::RollDue)
    );
}

#[test]
fn illegal_move_is_refused() {
    let mut table = table_until(choice_for(RED));
    // Red jumping straight into its home row.
    let mv: Move =
        serde_json::from_str(r#"{"Classic":{"colour":"red","from":0,"to":44}}"#).unwrap();
    let illegal = table.sign(RED, Act::Move { mv, auto: false }).unwrap();
    assert!(matches!(
        refused(&mut table, illegal),
        LogError::Flow(FlowError::Illegal)
    ));
    // A legal move falsely marked as the computer's.
    let moves = table.log().state().game().unwrap().legal_moves();
    let computer = table.log().computer_move().unwrap();
    let other = *moves.iter().find(|&&m| m != computer).unwrap();
    let fake = table
        .sign(
            RED,
            Act::Move {
                mv: other,
                auto: true,
            },
        )
        .unwrap();
    assert_eq!(refused(&mut table, fake), LogError::NotTheComputersMove);
}

#[test]
fn roll_with_wrong_reveals_is_refused() {
    let mut table = table_until(roll_due_for(RED));
    let reveals = table.reveals().unwrap();

    let mut missing = reveals;
    missing.0[GREEN.index()] = None;
    let entry = table.sign(RED, Act::Roll(missing)).unwrap();
    assert_eq!(refused(&mut table, entry), LogError::MissingReveal(GREEN));

    // Green's reveal for the next roll instead of this one.
    let roll = table.log().state().rolls() + 1;
    let mut early = reveals;
    early.set(GREEN, table.chain(GREEN).unwrap().reveal(roll + 1).unwrap());
    let entry = table.sign(RED, Act::Roll(early)).unwrap();
    assert_eq!(refused(&mut table, entry), LogError::RevealMismatch(GREEN));

    let mut extra = reveals;
    extra.set(Colour::Yellow, Digest([9; 32]));
    let entry = table.sign(RED, Act::Roll(extra)).unwrap();
    assert_eq!(
        refused(&mut table, entry),
        LogError::UnexpectedReveal(Colour::Yellow)
    );
}

#[test]
fn reveal_not_matching_its_commitment_is_refused() {
    let mut table = table_until(roll_due_for(RED));
    let mut reveals = table.reveals().unwrap();
    reveals.set(BLUE, Digest([7; 32]));
    let entry = table.sign(RED, Act::Roll(reveals)).unwrap();
    assert_eq!(refused(&mut table, entry), LogError::RevealMismatch(BLUE));

    // The same reveal sent as a message to a phone.
    let (mut phone, mut out) = phone_of(&table, GREEN, None);
    let roll = table.log().state().rolls() + 1;
    let bad = Message::Reveal(Reveal {
        roll,
        seat: BLUE,
        value: Digest([7; 32]),
    });
    let error = phone.receive(BLUE, &bad.encode(), &mut out).unwrap_err();
    assert!(matches!(error, PhoneError::RevealMismatch(BLUE, r) if r == roll));
    assert!(error.blames_sender());
    assert_eq!(phone.log().head(), table.log().head());
}

#[test]
fn replayed_old_event_is_refused() {
    let mut table = table_until(|t| t.log().len() > 20);
    let old = table.log().entries()[12].clone();
    assert_eq!(
        lost(&mut table, old.clone()),
        LogError::Duplicate { index: 12 }
    );
    // Moved to the end of the log, its signature no longer fits.
    let player_entry = table.log().entries()[..20]
        .iter()
        .find(|e| e.author().is_some())
        .unwrap()
        .clone();
    let author = player_entry.author().unwrap();
    let moved = Entry {
        index: table.log().len(),
        prev: table.log().head(),
        ..player_entry
    };
    assert_eq!(refused(&mut table, moved), LogError::BadSignature(author));
    // From another game with the same players, it fails as well.
    let seats = Seats::for_players(3).unwrap();
    let mut other = Table::new(&Config::new(12, seats)).unwrap();
    while other.next_entry().unwrap().author().is_none() {
        other.step();
    }
    let foreign = other.next_entry().unwrap();
    let author = foreign.author().unwrap();
    let foreign = Entry {
        index: table.log().len(),
        prev: table.log().head(),
        ..foreign
    };
    assert_eq!(refused(&mut table, foreign), LogError::BadSignature(author));
}

#[test]
fn two_different_events_at_one_index_are_refused() {
    let table = table_until(choice_for(RED));
    let moves = table.log().state().game().unwrap().legal_moves();
    let mut entries: Vec<Entry> = moves[..2]
        .iter()
        .map(|&mv| table.sign(RED, Act::Move { mv, auto: false }).unwrap())
        .collect();
    // Whichever arrives first, every phone keeps the one with the lower
    // hash, so that honest phones agree; the other is refused.
    entries.sort_by_key(Entry::hash);
    let (keep, other) = (entries[0].clone(), entries[1].clone());

    let mut first = table.clone();
    first.log_mut().offer(keep.clone()).unwrap();
    assert_eq!(
        lost(&mut first, other.clone()),
        LogError::Equivocation {
            seat: RED,
            index: keep.index
        }
    );

    let mut second = table.clone();
    second.log_mut().offer(other).unwrap();
    assert!(matches!(
        second.log_mut().offer(keep),
        Ok(Offered::Replaced { .. })
    ));
    assert_eq!(first.log().head(), second.log().head());
}

#[test]
fn another_computer_turn_in_place_of_one_is_refused() {
    // Blue is the computer's: play until it has moved, then a few entries on.
    let mut config = protocol_support::config();
    config.computers = Colours::one(BLUE);
    let mut table = Table::new(&config).unwrap();
    let at = loop {
        assert!(table.step(), "the game ended first");
        let last = table.log().entries().last().unwrap();
        if matches!(last.kind, Kind::Computer(Auto::Move(_))) {
            break last.index;
        }
    };
    for _ in 0..3 {
        assert!(table.step());
    }
    let ours = table.log().entries()[at as usize].clone();
    let Kind::Computer(Auto::Move(mv)) = ours.kind else {
        unreachable!()
    };
    // Every other blue move there, and a roll, whatever their hashes.
    for other in ["0>44", "1>2", "0>1"] {
        let (from, to) = other.split_once('>').unwrap();
        let json = format!(r#"{{"Classic":{{"colour":"blue","from":{from},"to":{to}}}}}"#);
        let bogus: Move = serde_json::from_str(&json).unwrap();
        if bogus == mv {
            continue;
        }
        let entry = Entry {
            kind: Kind::Computer(Auto::Move(bogus)),
            ..ours.clone()
        };
        assert_eq!(
            refused(&mut table, entry),
            LogError::OtherComputerTurn { index: at }
        );
    }
    let roll = Entry {
        kind: Kind::Computer(Auto::Roll(Default::default())),
        ..ours
    };
    assert_eq!(
        refused(&mut table, roll),
        LogError::OtherComputerTurn { index: at }
    );
}

/// Red moves at a turn with a choice (its first or second legal move), the
/// game goes on, and then red signs the other move for that old turn,
/// knowing the dice since. Returns the table (the honest game) and the two
/// moves.
fn rewind(second: bool) -> (Table, Entry, Entry) {
    let mut table = table_until(choice_for(RED));
    let moves = table.log().state().game().unwrap().legal_moves();
    let [mut played, mut other] =
        [moves[0], moves[1]].map(|mv| table.sign(RED, Act::Move { mv, auto: false }).unwrap());
    if second {
        std::mem::swap(&mut played, &mut other);
    }
    table.log_mut().offer(played.clone()).unwrap();
    for _ in 0..6 {
        assert!(table.step(), "the game ended first");
    }
    (table, played, other)
}

#[test]
fn a_player_who_signs_another_move_for_an_old_turn_is_out() {
    for second in [false, true] {
        rewound_player_is_out(second);
    }
}

fn rewound_player_is_out(second: bool) {
    let (table, played, other) = rewind(second);
    let at = played.index;
    let proof = Entry::expose(&played, &other).unwrap();
    // Whichever of the two moves hashes lower, a phone that has seen both
    // writes the proof in their place, sends it, and red is out.
    let (mut blue, mut out) = phone_of(&table, BLUE, None);
    out.take();
    receive_unblamed(&mut blue, RED, &other, &mut out);
    assert_eq!(blue.log().entries()[at as usize], proof);
    assert_eq!(blue.log().state().control(RED), Some(Control::Left));
    assert!(
        out.take().contains(&Message::Entry(proof.clone())),
        "the proof is sent"
    );
    // A phone that never saw the second move takes the proof alone.
    let (mut green, mut out) = phone_of(&table, GREEN, None);
    receive_unblamed(&mut green, BLUE, &proof, &mut out);
    assert_eq!(green.log().entries()[at as usize], proof);
    // Both go on from there, the computer playing red, and agree.
    assert_eq!(
        green.log().entries()[..=at as usize],
        blue.log().entries()[..=at as usize]
    );
}

/// Once a phone shows the end of the game it keeps it (as it lingers to
/// tell the others): a loser's stronger entry for an old place, here the
/// proof of their own two moves at one turn, no longer sets the game back
/// and takes its result away, as it would while the game is on.
#[test]
fn a_phone_that_keeps_the_end_is_not_set_back_by_an_entry_for_an_old_place() {
    let mut table = table_until(choice_for(RED));
    let (running, _) = phone_of(&table, BLUE, None);
    let moves = table.log().state().game().unwrap().legal_moves();
    let [played, other] =
        [moves[0], moves[1]].map(|mv| table.sign(RED, Act::Move { mv, auto: false }).unwrap());
    let at = played.index;
    table.log_mut().offer(played.clone()).unwrap();
    while table.step() {}
    assert!(matches!(table.log().due(), Due::Over(_)), "the game ends");
    let proof = Entry::expose(&played, &other).unwrap();

    // A game still on has no end to keep.
    let mut running = running;
    assert!(!running.keep_end());
    // Not kept, the end goes: the proof takes red's old place.
    let (mut blue, mut out) = phone_of(&table, BLUE, None);
    receive_unblamed(&mut blue, RED, &other, &mut out);
    assert_eq!(blue.log().entries()[at as usize], proof);
    assert!(blue.log().result().is_none(), "the result is gone");

    // Kept, nothing takes a place before it, neither the second move nor
    // the proof an honest phone passes on, and nobody is blamed for it.
    let (mut green, mut out) = phone_of(&table, GREEN, None);
    assert!(green.keep_end());
    let end = (green.log().len(), green.log().head(), green.log().result());
    for (from, entry) in [(RED, other), (BLUE, proof)] {
        let error = green
            .receive(from, &Message::Entry(entry).encode(), &mut out)
            .unwrap_err();
        assert!(
            matches!(error, PhoneError::Log(LogError::AfterTheEnd { index }) if index == at),
            "{error}"
        );
        assert!(!error.blames_sender());
        assert_eq!(
            (green.log().len(), green.log().head(), green.log().result()),
            end
        );
    }
}

/// A player out for two moves signed at one turn cannot set the game back
/// there again and again with further proofs against themselves (another
/// pair of moves, or the same acts signed anew), each hashing lower: every
/// proof against one player in one place is one entry.
#[test]
fn further_proofs_against_a_player_already_out_at_a_place_do_not_set_it_back_again() {
    let mut table = table_until(|t| {
        choice_for(RED)(t) && t.log().state().game().unwrap().legal_moves().len() >= 3
    });
    let moves = table.log().state().game().unwrap().legal_moves();
    let signed: Vec<Entry> = moves[..3]
        .iter()
        .map(|&mv| table.sign(RED, Act::Move { mv, auto: false }).unwrap())
        .collect();
    let at = signed[0].index;
    table.log_mut().offer(signed[0].clone()).unwrap();
    for _ in 0..6 {
        assert!(table.step(), "the game ended first");
    }
    let proofs =
        [(0, 1), (0, 2), (1, 2)].map(|(a, b)| Entry::expose(&signed[a], &signed[b]).unwrap());
    assert!(proofs[0] != proofs[1] && proofs[1] != proofs[2]);
    assert!(matches!(
        table.log_mut().offer(proofs[0].clone()),
        Ok(Offered::Replaced { .. })
    ));
    assert!(table.step(), "the game goes on from the proof");
    for proof in &proofs[1..] {
        assert_eq!(proof.hash(), proofs[0].hash());
        assert_eq!(
            lost(&mut table, proof.clone()),
            LogError::Duplicate { index: at }
        );
    }
}

#[test]
fn a_proof_that_does_not_hold_is_refused() {
    let (mut table, played, other) = rewind(false);
    let Kind::Cheat(proof) = Entry::expose(&played, &other).unwrap().kind else {
        unreachable!()
    };
    let Proof::TwoActs { first, second } = *proof else {
        unreachable!()
    };
    let with = |first: &Signed, second: &Signed| Entry {
        kind: Kind::Cheat(Box::new(Proof::TwoActs {
            first: first.clone(),
            second: second.clone(),
        })),
        ..played.clone()
    };
    // One act twice, or the two in the other order.
    assert_eq!(
        refused(&mut table, with(&first, &first)),
        LogError::NotAProof
    );
    assert_eq!(
        refused(&mut table, with(&second, &first)),
        LogError::NotAProof
    );
    // An act red signed for another place (its leave, at the head) does
    // not stand in this one, in either order. (Which order is the proof's
    // depends on the two hashes, so on the game.)
    let Kind::Player(leave) = table.sign(RED, Act::Leave).unwrap().kind else {
        unreachable!()
    };
    for (a, b) in [(&first, &leave), (&leave, &first)] {
        let error = refused(&mut table, with(a, b));
        assert!(
            matches!(error, LogError::NotAProof | LogError::BadSignature(RED)),
            "{error}"
        );
    }
    // A second act whose signature is not red's.
    let forged = Signed {
        signature: first.signature,
        ..second.clone()
    };
    let as_entry = |signed: &Signed| Entry {
        kind: Kind::Player(signed.clone()),
        ..played.clone()
    };
    let bad = Entry::expose(&as_entry(&first), &as_entry(&forged)).unwrap();
    assert_eq!(refused(&mut table, bad), LogError::BadSignature(RED));
    // Two moves red signed for a place where blue is to roll: both acts
    // must be valid in their place, so a proof cannot rewind the game to
    // where the player was not even due.
    let mut elsewhere = table_until(roll_due_for(BLUE));
    let [a, b] = [played.clone(), other.clone()].map(|e| {
        let Kind::Player(Signed {
            act: Act::Move { mv, .. },
            ..
        }) = e.kind
        else {
            unreachable!()
        };
        elsewhere.sign(RED, Act::Move { mv, auto: false }).unwrap()
    });
    let undue = Entry::expose(&a, &b).unwrap();
    assert_eq!(refused(&mut elsewhere, undue), LogError::NotYourTurn(RED));
    // The real proof holds, in place of red's move and all after it.
    let real = Entry::expose(&played, &other).unwrap();
    assert!(matches!(
        table.log_mut().offer(real),
        Ok(Offered::Replaced { .. })
    ));
    assert_eq!(table.log().len(), played.index + 1);
    assert_eq!(table.log().state().control(RED), Some(Control::Left));
}

/// Green is gone, so red alone certifies blue gone. Red lets the game go
/// on from blue's roll until red has acted, then signs that certificate
/// for the place of blue's roll: it would set the game back there, with
/// the dice of the replay made of red's reveals alone. Returns the game
/// (as it was at the place, and as it went on) and the late certificate.
fn late_vote() -> (Table, Table, Entry) {
    let mut table = certified_gone(GREEN);
    play_until(&mut table, roll_due_for(BLUE));
    late(table, Change::Gone(Colours::one(BLUE)))
}

/// The certificate of `change` at the head of `table`, and the game gone
/// on from there until red has acted.
fn late(at_place: Table, change: Change) -> (Table, Table, Entry) {
    let late = at_place.certificate(change).unwrap();
    let at = late.index as usize;
    let mut table = at_place.clone();
    play_until(&mut table, acted_since(RED, at));
    assert!(table.step(), "the game ended first");
    (at_place, table, late)
}

/// Red is the only player present, blue coming back: blue's vote to be
/// back, given while it caught up, and red's own, signed after red played
/// past that place, make a certificate only red completed.
#[test]
fn a_return_certified_late_by_the_only_player_present_puts_them_out() {
    let mut table = certified_gone(GREEN);
    let blue_gone = table.certificate(Change::Gone(Colours::one(BLUE))).unwrap();
    table.log_mut().offer(blue_gone).unwrap();
    for _ in 0..4 {
        assert!(table.step(), "the game ended first");
    }
    let (_, table, late) = late(table, Change::Back(BLUE));
    let Kind::Absent(certificate) = &late.kind else {
        unreachable!()
    };
    assert_eq!(certificate.votes.len(), 2);
    assert_eq!(certificate.completed_by(), Some(RED));
    let at = late.index as usize;
    let (mut blue, mut out) = phone_of(&table, BLUE, None);
    receive_unblamed(&mut blue, RED, &late, &mut out);
    let Kind::Cheat(proof) = &blue.log().entries()[at].kind else {
        panic!("no proof in the place")
    };
    assert!(matches!(**proof, Proof::LateVote { .. }));
    assert_eq!(blue.log().state().control(RED), Some(Control::Left));
}

#[test]
fn a_certificate_its_only_voter_signs_after_playing_past_the_place_puts_them_out() {
    let (at_place, table, late) = late_vote();
    let at = late.index as usize;
    let (mut blue, mut out) = phone_of(&table, BLUE, None);
    out.take();
    receive_unblamed(&mut blue, RED, &late, &mut out);
    let proof = blue.log().entries()[at].clone();
    assert_eq!(
        Some(&proof),
        Entry::expose_late(&late, &table.log().entries()[at..]).as_ref()
    );
    let Kind::Cheat(inner) = &proof.kind else {
        panic!("no proof in the place: {:?}", proof.kind)
    };
    assert!(matches!(**inner, Proof::LateVote { .. }));
    // Red is out; blue plays on, not gone.
    let state = blue.log().state();
    assert_eq!(state.control(RED), Some(Control::Left));
    assert_eq!(state.control(BLUE), Some(Control::Player));
    assert!(
        out.take().contains(&Message::Entry(proof.clone())),
        "the proof is sent"
    );
    // A phone that took the late certificate (it had not seen red act
    // since) takes the proof in its place.
    let mut took = at_place;
    assert_eq!(took.log_mut().offer(late.clone()), Ok(Offered::Appended));
    assert!(matches!(
        took.log_mut().offer(proof),
        Ok(Offered::Replaced { .. })
    ));
    assert_eq!(took.log().state().control(RED), Some(Control::Left));
    assert_eq!(took.log().entries(), &blue.log().entries()[..=at]);
}

/// The late-vote proof `seat`'s phone writes for `late` (blue gone), sent
/// by red to the phone of `table`'s game: its path, ending in red's act.
fn exposed_path(table: &Table, late: &Entry, seat: Colour) -> Vec<Entry> {
    let at = late.index as usize;
    let (mut phone, mut out) = phone_of(table, seat, None);
    receive_unblamed(&mut phone, RED, late, &mut out);
    assert_eq!(phone.log().state().control(RED), Some(Control::Left));
    assert_eq!(phone.log().state().control(BLUE), Some(Control::Player));
    let Kind::Cheat(proof) = &phone.log().entries()[at].kind else {
        panic!(
            "no proof in the place: {:?}",
            phone.log().entries()[at].kind
        )
    };
    let Proof::LateVote { path, .. } = &**proof else {
        panic!("another proof: {proof:?}")
    };
    assert_eq!(path.last().and_then(Entry::author), Some(RED));
    path.clone()
}

/// Green gone, the certificate of blue gone for blue's roll (red's vote
/// alone completes it), and the game played on to red's next roll, red's
/// first act after that place.
fn late_for_blues_roll() -> (Table, Entry) {
    let mut table = certified_gone(GREEN);
    play_until(&mut table, roll_due_for(BLUE));
    let late = table.certificate(Change::Gone(Colours::one(BLUE))).unwrap();
    play_until(&mut table, roll_due_for(RED));
    (table, late)
}

/// Red, put out for signing two acts at its first roll after blue's, then
/// signs blue gone for the place of blue's roll: taking it would drop the
/// proof that put red out, and red has no act of its own in the log after
/// the place. The first of its two acts, in the proof, is its act past the
/// place, so red is exposed as by any other.
#[test]
fn a_late_certificate_does_not_undo_a_proof_of_two_acts_against_its_voter() {
    let (mut table, late) = late_for_blues_roll();
    let at = late.index as usize;
    let mut rolled = table.clone();
    assert!(rolled.step(), "red rolls");
    let roll = rolled.log().entries().last().unwrap().clone();
    let leave = table.sign(RED, Act::Leave).unwrap();
    let two_acts = Entry::expose(&roll, &leave).unwrap();
    assert_eq!(table.log_mut().offer(two_acts), Ok(Offered::Appended));
    for _ in 0..4 {
        assert!(table.step(), "the game ended first");
    }
    assert!(!acted_since(RED, at)(&table), "red's acts are in the proof");
    let path = exposed_path(&table, &late, BLUE);
    let Kind::Cheat(proof) = &table.log().entries()[at + path.len() - 1].kind else {
        panic!("the path does not end at the proof's place")
    };
    let Proof::TwoActs { first, .. } = &**proof else {
        unreachable!()
    };
    assert_eq!(path.last().unwrap().kind, Kind::Player(first.clone()));
}

/// The same with a late-vote proof: red, put out for signing blue gone
/// late at blue's second try, signs blue gone at the first try too.
#[test]
fn a_late_certificate_does_not_undo_a_late_vote_proof_against_its_voter() {
    // Blue's roll due twice in a row (three tries with no piece out), in
    // the first game that has it: whether one does depends on the dice,
    // so on everything in the header, the protocol version too.
    let twice = |seed| {
        let table = Table::new(&Config::new(seed, Seats::for_players(3).unwrap())).unwrap();
        let mut table = certified_gone_in(table, GREEN);
        loop {
            if !played_until(&mut table, roll_due_for(BLUE)) {
                return None;
            }
            let first_try = table.clone();
            if !table.step() {
                return None;
            }
            if roll_due_for(BLUE)(&table) {
                return Some((table, first_try));
            }
        }
    };
    let (table, first_try) = (11..31)
        .find_map(twice)
        .expect("one game of twenty with blue's roll due twice");
    let (_, mut table, second) = late(table, Change::Gone(Colours::one(BLUE)));
    let at_second = second.index as usize;
    let exposed = Entry::expose_late(&second, &table.log().entries()[at_second..]).unwrap();
    assert!(matches!(
        table.log_mut().offer(exposed),
        Ok(Offered::Replaced { .. })
    ));
    for _ in 0..4 {
        assert!(table.step(), "the game ended first");
    }
    let first = first_try
        .certificate(Change::Gone(Colours::one(BLUE)))
        .unwrap();
    assert!(!acted_since(RED, first.index as usize)(&table));
    let path = exposed_path(&table, &first, BLUE);
    // The path runs from the first try through the earlier proof's path.
    assert_eq!(path[0], table.log().entries()[first.index as usize]);
    assert_eq!(path[1].index, second.index);
}

/// Red's only act after blue's roll is in a late-vote proof against blue
/// (blue signed red gone at red's roll, after acting): red, signing blue
/// gone at blue's roll, would drop it. Red's act in that proof's path
/// exposes red too.
#[test]
fn a_late_certificate_does_not_undo_a_late_vote_proof_holding_its_voters_act() {
    let (mut table, red_late) = late_for_blues_roll();
    let at = red_late.index as usize;
    let blue_late = table.certificate(Change::Gone(Colours::one(RED))).unwrap();
    let at_blue = blue_late.index as usize;
    play_until(&mut table, acted_since(BLUE, at_blue));
    let exposed = Entry::expose_late(&blue_late, &table.log().entries()[at_blue..]).unwrap();
    assert!(matches!(
        table.log_mut().offer(exposed),
        Ok(Offered::Replaced { .. })
    ));
    // Red's roll is due again after the proof: red has not rolled again.
    assert!(!acted_since(RED, at)(&table));
    let path = exposed_path(&table, &red_late, GREEN);
    assert_eq!(path.last().unwrap().index as usize, at_blue, "red's roll");
}

/// Before red acts again, the same certificate is the race an honest
/// phone may lose (blue's roll came just as red's 45 s ran out): it takes
/// the place, and nobody is out (the bounded case of docs/protocol.md).
#[test]
fn a_certificate_its_voter_signs_before_acting_again_takes_the_place() {
    let (mut at_place, _, late) = late_vote();
    let at = late.index as usize;
    assert!(at_place.step(), "blue rolls");
    let (mut blue, mut out) = phone_of(&at_place, BLUE, None);
    receive_unblamed(&mut blue, RED, &late, &mut out);
    assert_eq!(blue.log().entries()[at], late);
    assert_eq!(blue.log().state().control(RED), Some(Control::Player));
    assert_eq!(blue.log().state().control(BLUE), Some(Control::Absent));
}

#[test]
fn a_late_vote_proof_that_does_not_hold_is_refused() {
    let (at_place, mut table, late) = late_vote();
    let at = late.index as usize;
    let since = &table.log().entries()[at..];
    let real = Entry::expose_late(&late, since).unwrap();
    let Kind::Cheat(proof) = &real.kind else {
        unreachable!()
    };
    let Proof::LateVote { certificate, path } = (**proof).clone() else {
        unreachable!()
    };
    let with = |certificate: &Certificate, path: Vec<Entry>| Entry {
        kind: Kind::Cheat(Box::new(Proof::LateVote {
            certificate: certificate.clone(),
            path,
        })),
        ..real.clone()
    };
    let n = path.len();
    // Cut before red's act, or run past it.
    assert_eq!(
        refused(&mut table, with(&certificate, path[..n - 1].to_vec())),
        LogError::NotAProof
    );
    let longer = table.log().entries()[at..=at + n].to_vec();
    assert_eq!(
        refused(&mut table, with(&certificate, longer)),
        LogError::NotAProof
    );
    // A link of the chain broken.
    let mut broken = path.clone();
    broken[1].prev = Digest([0; 32]);
    assert_eq!(
        refused(&mut table, with(&certificate, broken)),
        LogError::NotAProof
    );
    // Red's act at the end, its signature forged.
    let mut forged = path.clone();
    let Kind::Player(signed) = &mut forged[n - 1].kind else {
        unreachable!()
    };
    signed.signature = table.sign(BLUE, Act::Leave).map_or_else(
        || unreachable!(),
        |e| match e.kind {
            Kind::Player(s) => s.signature,
            _ => unreachable!(),
        },
    );
    assert_eq!(
        refused(&mut table, with(&certificate, forged)),
        LogError::BadSignature(RED)
    );
    // Red's own certificate in the place, and red acting after it: what an
    // honest phone does.
    let mut honest = at_place.clone();
    honest.log_mut().offer(late.clone()).unwrap();
    play_until(&mut honest, acted_since(RED, at + 1));
    let own = honest.log().entries()[at..].to_vec();
    assert_eq!(Entry::expose_late(&late, &own), None);
    assert_eq!(
        refused(&mut honest, with(&certificate, own)),
        LogError::NotAProof
    );
    // A certificate that does not hold in the place: with green present,
    // red alone cannot certify blue gone.
    let mut all_present = table_until(roll_due_for(BLUE));
    let alone = all_present
        .certificate(Change::Gone(Colours::one(BLUE)))
        .map(|mut e| {
            let Kind::Absent(c) = &mut e.kind else {
                unreachable!()
            };
            c.votes.retain(|&(voter, _)| voter == RED);
            e
        })
        .unwrap();
    let place = alone.index as usize;
    play_until(&mut all_present, acted_since(RED, place));
    let undue = Entry::expose_late(&alone, &all_present.log().entries()[place..]).unwrap();
    assert!(matches!(
        refused(&mut all_present, undue),
        LogError::WrongVoters { .. }
    ));
    // The real proof holds.
    assert!(matches!(
        table.log_mut().offer(real),
        Ok(Offered::Replaced { .. })
    ));
    assert_eq!(table.log().state().control(RED), Some(Control::Left));
}

/// Green was certified absent and the computer played on. An act signed
/// for the place of the computer's first turn after that would set the
/// game back to it; no player's act is valid there, whoever signs it: the
/// seat in turn was the computer's.
#[test]
fn no_act_takes_the_place_of_an_old_computer_turn() {
    let mut table = certified_gone(GREEN);
    let at = table.log().len();
    for _ in 0..8 {
        assert!(table.step(), "the game ended first");
    }
    assert!(matches!(
        table.log().entries()[at as usize].kind,
        Kind::Computer(_)
    ));
    let prev = table.log().entries()[at as usize - 1].hash();
    for seat in [RED, BLUE, GREEN] {
        let log = table.log();
        let old = Entry::sign(
            table.signer(seat).unwrap(),
            log.game(),
            at,
            prev,
            seat,
            Act::Leave,
        );
        assert_eq!(refused(&mut table, old), LogError::NotYourTurn(seat));
    }
}

#[test]
fn bad_certificates_are_refused() {
    let mut table = table_until(roll_due_for(RED));
    let log = table.log();
    let vote = |voter: Colour, change: Change| table.vote(change, voter).unwrap();
    let cert = |change: Change, votes: Vec<Vote>| Entry {
        index: log.len(),
        prev: log.head(),
        kind: Kind::Absent(Certificate {
            change,
            votes: votes.into_iter().map(|v| (v.voter, v.signature)).collect(),
        }),
    };
    let green = Change::Gone(Colours::one(GREEN));
    let blue_green = Change::Gone(Colours::one(BLUE).with(GREEN));
    let red_blue = Colours::one(RED).with(BLUE);
    let cases = [
        // Red alone cannot declare both others gone.
        (
            cert(blue_green, vec![vote(RED, blue_green)]),
            LogError::TooFewVoters {
                voters: Colours::one(RED),
                present: red_blue.with(GREEN),
            },
        ),
        // Blue's vote is missing.
        (
            cert(green, vec![vote(RED, green)]),
            LogError::WrongVoters {
                voters: red_blue,
                signed: vec![RED],
            },
        ),
        // Blue's vote was for another set.
        (
            cert(green, vec![vote(RED, green), vote(BLUE, blue_green)]),
            LogError::BadSignature(BLUE),
        ),
        (
            cert(Change::Gone(Colours::NONE), vec![]),
            LogError::GoneNotPresent(Colours::NONE),
        ),
        // Green is not away, so it cannot come back.
        (
            cert(
                Change::Back(GREEN),
                vec![
                    vote(RED, Change::Back(GREEN)),
                    vote(BLUE, Change::Back(GREEN)),
                    vote(GREEN, Change::Back(GREEN)),
                ],
            ),
            LogError::NotAbsent(GREEN),
        ),
    ];
    let good = cert(green, vec![vote(RED, green), vote(BLUE, green)]);
    for (entry, error) in cases {
        assert_eq!(refused(&mut table, entry), error);
    }
    // The right certificate is taken.
    assert_eq!(table.log_mut().offer(good), Ok(Offered::Appended));
    // Now away, green comes back only with its own vote and everyone's.
    let log = table.log();
    let back = |voters: &[Colour]| Entry {
        index: log.len(),
        prev: log.head(),
        kind: Kind::Absent(Certificate {
            change: Change::Back(GREEN),
            votes: voters
                .iter()
                .map(|&voter| {
                    let vote = table.vote(Change::Back(GREEN), voter).unwrap();
                    (voter, vote.signature)
                })
                .collect(),
        }),
    };
    let (without_green, without_blue, all) = (
        back(&[RED, BLUE]),
        back(&[RED, GREEN]),
        back(&[RED, BLUE, GREEN]),
    );
    let all_three = red_blue.with(GREEN);
    assert_eq!(
        refused(&mut table, without_green),
        LogError::WrongVoters {
            voters: all_three,
            signed: vec![RED, BLUE]
        }
    );
    assert_eq!(
        refused(&mut table, without_blue),
        LogError::WrongVoters {
            voters: all_three,
            signed: vec![RED, GREEN]
        }
    );
    assert_eq!(table.log_mut().offer(all), Ok(Offered::Appended));
}

/// No honest entry is larger than `MAX_ENTRY`: a batch of entries stops
/// before one that would not fit, so a larger one would stop every batch.
#[test]
fn an_entry_larger_than_any_honest_one_is_refused() {
    let mut table = certified_gone(GREEN);
    let Some(Entry {
        kind: Kind::Absent(mut certificate),
        ..
    }) = table.certificate(Change::Gone(Colours::one(BLUE)))
    else {
        unreachable!()
    };
    let vote = certificate.votes[0];
    certificate.votes = vec![vote; 500];
    let log = table.log();
    let huge = Entry {
        index: log.len(),
        prev: log.head(),
        kind: Kind::Absent(certificate),
    };
    assert!(matches!(
        refused(&mut table, huge),
        LogError::TooLarge { .. }
    ));
}

#[test]
fn forged_votes_and_result_signatures_are_refused() {
    let mut table = table_until(roll_due_for(RED));
    let (mut phone, mut out) = phone_of(&table, GREEN, None);
    // Blue signs a vote in red's name.
    let vote = Vote {
        voter: RED,
        ..table.vote(Change::Gone(Colours::one(GREEN)), BLUE).unwrap()
    };
    let error = phone
        .receive(BLUE, &Message::Vote(vote).encode(), &mut out)
        .unwrap_err();
    assert!(
        matches!(error, PhoneError::Log(LogError::BadSignature(RED))),
        "{error}"
    );
    assert!(error.blames_sender());

    while table.step() {}
    let (mut phone, mut out) = phone_of(&table, GREEN, None);
    let result = table.log().result().unwrap();
    let forged = Message::Result {
        seat: RED,
        head: table.log().head(),
        signature: result.sign(table.signer(BLUE).unwrap()),
    };
    let error = phone.receive(BLUE, &forged.encode(), &mut out).unwrap_err();
    assert!(
        matches!(error, PhoneError::BadResultSignature(RED)),
        "{error}"
    );
    assert!(error.blames_sender());
}

/// A phone takes a copy of a reveal, vote or result signature it holds
/// already without checking it again (a player could flood its own valid
/// ones, each a signature check or hundreds of hashes, and a signature can
/// be made anew at will): a second vote or result signature of a voter or
/// seat is not even read, forged or not; a reveal (one value per roll) with
/// other bytes is still checked and refused.
#[test]
fn copies_are_taken_unchecked_and_other_reveals_in_their_place_still_refused() {
    let mut table = table_until(roll_due_for(RED));
    let (mut phone, mut out) = phone_of(&table, GREEN, None);
    let roll = table.log().state().rolls() + 1;
    let value = table.reveals().unwrap().get(RED).unwrap();
    let vote = table.vote(Change::Gone(Colours::one(BLUE)), RED).unwrap();
    for _ in 0..3 {
        let reveal = Message::Reveal(Reveal {
            roll,
            seat: RED,
            value,
        });
        phone.receive(RED, &reveal.encode(), &mut out).unwrap();
        phone
            .receive(RED, &Message::Vote(vote.clone()).encode(), &mut out)
            .unwrap();
    }
    let head = phone.log().head();
    let wrong = Message::Reveal(Reveal {
        roll,
        seat: RED,
        value: Digest([7; 32]),
    });
    let error = phone.receive(RED, &wrong.encode(), &mut out).unwrap_err();
    assert!(matches!(error, PhoneError::RevealMismatch(RED, r) if r == roll));
    let forged = Vote {
        signature: table.vote(vote.change, BLUE).unwrap().signature,
        ..vote
    };
    phone
        .receive(BLUE, &Message::Vote(forged).encode(), &mut out)
        .unwrap();
    assert_eq!(phone.log().head(), head);

    while table.step() {}
    let (mut phone, mut out) = phone_of(&table, GREEN, None);
    let (result, head) = (table.log().result().unwrap(), table.log().head());
    let signed = |by| Message::Result {
        seat: RED,
        head,
        signature: result.sign(table.signer(by).unwrap()),
    };
    for _ in 0..3 {
        phone.receive(RED, &signed(RED).encode(), &mut out).unwrap();
    }
    phone
        .receive(BLUE, &signed(BLUE).encode(), &mut out)
        .unwrap();
}

#[test]
fn oversized_or_malformed_messages_are_refused() {
    let too_large = vec![0u8; MAX_MESSAGE + 1];
    assert_eq!(
        Message::decode(&too_large),
        Err(DecodeError::TooLarge {
            len: MAX_MESSAGE + 1,
            max: MAX_MESSAGE
        })
    );
    assert!(matches!(
        Message::decode(&[0xff, 0xff, 0xff]),
        Err(DecodeError::Malformed(_))
    ));
    assert!(matches!(
        Message::decode(&[]),
        Err(DecodeError::Malformed(_))
    ));
    let mut trailing = Message::Sync { from: 3 }.encode();
    trailing.push(0);
    assert_eq!(Message::decode(&trailing), Err(DecodeError::Trailing(1)));
    // A batch longer than the limit.
    let table = table_until(|t| t.log().len() > 130);
    let batch = Message::Entries {
        entries: table.log().entries()[..129].to_vec(),
    };
    assert!(matches!(
        Message::decode(&batch.encode()),
        Err(DecodeError::TooManyEntries { len: 129, .. })
    ));
    // A phone refuses such messages with the decoder's error.
    let (mut phone, mut out) = phone_of(&table, GREEN, None);
    let error = phone.receive(RED, &too_large, &mut out).unwrap_err();
    assert!(matches!(
        error,
        PhoneError::Decode(DecodeError::TooLarge { .. })
    ));
    assert!(error.blames_sender());
    assert_eq!(phone.log().head(), table.log().head());
}

/// A transport whose peers have `backlog` messages each on their way.
struct Slow {
    sent: Sent,
    backlog: usize,
}

impl Transport for Slow {
    fn send(&mut self, to: Colour, message: &[u8]) {
        self.sent.send(to, message);
    }
    fn broadcast(&mut self, message: &[u8]) {
        self.sent.broadcast(message);
    }
    fn backlog(&self, _to: Colour) -> usize {
        self.backlog
    }
}

#[test]
fn a_phone_that_takes_nothing_is_sent_no_more_entries_however_often_it_asks() {
    let table = table_until(|t| t.log().len() > 20);
    let (mut phone, _) = phone_of(&table, GREEN, None);
    let sync = Message::Sync { from: 0 }.encode();
    let mut taking = Slow {
        sent: Sent::default(),
        backlog: 0,
    };
    phone.receive(RED, &sync, &mut taking).unwrap();
    assert!(matches!(
        taking.sent.take()[..],
        [Message::Entries { ref entries }] if entries.len() > 20
    ));
    let mut not_taking = Slow {
        sent: Sent::default(),
        backlog: 1000,
    };
    for _ in 0..100 {
        // Not an error: a phone catching up may ask again before an answer
        // arrives, and it is not blamed for it.
        phone.receive(RED, &sync, &mut not_taking).unwrap();
    }
    assert!(not_taking.sent.take().is_empty());
}

/// A game with red's roll due, where green's phone will stand, the hashes
/// of the same game played on, and the messages green's peers send it
/// there, encoded: the entries that follow (in a batch, the next one, and
/// one past a gap), red's and blue's reveals for the roll, a vote, a status
/// and a sync. The cases below damage them, so that many still decode and
/// reach the phone's checks, which random bytes almost never do.
struct Corpus {
    table: Table,
    honest: Vec<Digest>,
    messages: Vec<Vec<u8>>,
}

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let table = table_until(roll_due_for(RED));
        let mut on = table.clone();
        for _ in 0..20 {
            assert!(on.step(), "the game ended first");
        }
        let at = table.log().len() as usize;
        let next = &on.log().entries()[at..];
        let roll = table.log().state().rolls() + 1;
        let reveals = table.reveals().unwrap();
        let reveal = |seat| {
            Message::Reveal(Reveal {
                roll,
                seat,
                value: reveals.get(seat).unwrap(),
            })
        };
        let messages = [
            Message::Entries {
                entries: next.to_vec(),
            },
            Message::Entry(next[0].clone()),
            Message::Entry(next[2].clone()),
            reveal(RED),
            reveal(BLUE),
            Message::Vote(table.vote(Change::Gone(Colours::one(BLUE)), RED).unwrap()),
            Message::Status {
                len: on.log().len(),
                head: on.log().head(),
                missing: Colours::one(GREEN),
            },
            Message::Sync { from: 3 },
        ]
        .iter()
        .map(Message::encode)
        .collect();
        Corpus {
            honest: on.log().hashes().to_vec(),
            table,
            messages,
        }
    })
}

/// One change to a message's bytes, at a place drawn over its length.
#[derive(Debug, Clone)]
enum Damage {
    Flip(prop::sample::Index, u8),
    Cut(prop::sample::Index),
    Insert(prop::sample::Index, u8),
    Remove(prop::sample::Index),
}

fn damage() -> impl Strategy<Value = Damage> {
    let at = any::<prop::sample::Index>;
    // Mostly flips, which often leave a message that decodes (in a
    // signature, a digest, a number); a cut or a shifted byte rarely does.
    prop_oneof![
        6 => (at(), 0u8..8).prop_map(|(i, bit)| Damage::Flip(i, bit)),
        1 => at().prop_map(Damage::Cut),
        1 => (at(), any::<u8>()).prop_map(|(i, byte)| Damage::Insert(i, byte)),
        1 => at().prop_map(Damage::Remove),
    ]
}

/// One of the corpus's messages with one or two changes.
fn damaged_message() -> impl Strategy<Value = Vec<u8>> {
    (
        0..corpus().messages.len(),
        prop::collection::vec(damage(), 1..3),
    )
        .prop_map(|(which, damages)| {
            let mut bytes = corpus().messages[which].clone();
            for damage in damages {
                let len = bytes.len();
                match damage {
                    Damage::Flip(i, bit) if len > 0 => bytes[i.index(len)] ^= 1 << bit,
                    Damage::Cut(i) => bytes.truncate(i.index(len + 1)),
                    Damage::Insert(i, byte) => bytes.insert(i.index(len + 1), byte),
                    Damage::Remove(i) if len > 0 => {
                        bytes.remove(i.index(len));
                    }
                    _ => {}
                }
            }
            bytes
        })
}

/// A quarter or more of the damaged messages still decode (about half
/// did), so that the property below tests the phone's checks rather than
/// the decoder's.
#[test]
fn damaged_messages_often_still_decode() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = damaged_message();
    let decoded = (0..400)
        .filter(|_| {
            let bytes = strategy.new_tree(&mut runner).unwrap().current();
            Message::decode(&bytes).is_ok()
        })
        .count();
    assert!(decoded >= 100, "{decoded} of 400 decode");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A damaged message never panics a phone nor puts anything in its log
    /// but the honest game: refused, it leaves the log as it was (but for
    /// the whole entries before the damage in a batch); taken or not, the
    /// log is a prefix of the honest game, and it loads again entry by
    /// entry into the same log.
    #[test]
    fn damaged_messages_never_panic_a_phone_nor_change_its_game(bytes in damaged_message()) {
        let corpus = corpus();
        let (mut phone, mut out) = phone_of(&corpus.table, GREEN, None);
        let before = phone.log().hashes().to_vec();
        let batch = matches!(Message::decode(&bytes), Ok(Message::Entries { .. }));
        let received = phone.receive(BLUE, &bytes, &mut out);
        let log = phone.log();
        if received.is_err() && !batch {
            prop_assert_eq!(log.hashes(), &before[..]);
        }
        prop_assert!(log.hashes().starts_with(&before));
        prop_assert!(corpus.honest.starts_with(log.hashes()));
        let mut again = clovece::protocol::Log::new(log.header().clone()).unwrap();
        for entry in log.entries() {
            prop_assert_eq!(again.offer(entry.clone()), Ok(Offered::Appended));
        }
        prop_assert_eq!(again.hashes(), log.hashes());
    }
}

/// Green gone, red and blue each certify the other gone alone at one place
/// (a Wi-Fi blip: each may, with two present), and the one with the lower
/// hash wins; the loser is voted back and plays on. Its own certificate,
/// which lost there, must not become a proof against it: the winner
/// writing its winning certificate with its votes stripped (a certificate
/// is hashed by its place and change, so the path's chain still holds)
/// would make the loser's one vote outrank it.
#[test]
fn a_proof_whose_place_holds_a_certificate_stripped_of_its_votes_is_refused() {
    let mut table = certified_gone(GREEN);
    play_until(&mut table, roll_due_for(BLUE));
    let [red, blue] =
        [BLUE, RED].map(|gone| table.certificate(Change::Gone(Colours::one(gone))).unwrap());
    let (won, lost) = if red.hash() < blue.hash() {
        (red, blue)
    } else {
        (blue, red)
    };
    let loser = |e: &Entry| match &e.kind {
        Kind::Absent(c) => c.votes[0].0,
        _ => unreachable!(),
    };
    let (winner, loser) = (loser(&won), loser(&lost));
    let at = won.index as usize;
    assert_eq!(table.log_mut().offer(won.clone()), Ok(Offered::Appended));
    let back = table.certificate(Change::Back(loser)).unwrap();
    assert_eq!(table.log_mut().offer(back), Ok(Offered::Appended));
    play_until(&mut table, acted_since(loser, at + 1));
    // The loser's certificate, honestly, takes nothing and proves nothing.
    assert_eq!(
        Entry::expose_late(&lost, &table.log().entries()[at..]),
        None
    );

    let Kind::Absent(certificate) = &won.kind else {
        unreachable!()
    };
    let stripped = Entry {
        kind: Kind::Absent(Certificate {
            change: certificate.change,
            votes: Vec::new(),
        }),
        ..won.clone()
    };
    // The path from the place to the loser's act, its first entry
    // stripped: the chain breaks there (a certificate's voters are in its
    // hash), and were it not, the first entry is checked in its place.
    let entries = &table.log().entries()[at..];
    let act = entries
        .iter()
        .position(|e| e.author() == Some(loser))
        .unwrap();
    let mut path = entries[..=act].to_vec();
    path[0] = stripped;
    assert_eq!(Entry::expose_late(&lost, &path), None);
    let Kind::Absent(late) = lost.kind.clone() else {
        unreachable!()
    };
    let forged = Entry {
        index: lost.index,
        prev: lost.prev,
        kind: Kind::Cheat(Box::new(Proof::LateVote {
            certificate: late,
            path,
        })),
    };
    assert_eq!(refused(&mut table, forged), LogError::NotAProof);
    assert_eq!(table.log().state().control(loser), Some(Control::Player));
    assert_ne!(winner, loser);
}

/// A phone whose entries fit no branch (a hostile one's) is asked further
/// back each time; another phone's entry that forks is asked for from near
/// it all the same: each phone's search behind a fork is its own.
#[test]
fn one_phones_entries_off_every_branch_do_not_set_anothers_catch_up_back() {
    let table = table_until(|t| t.log().len() > 60);
    let (mut phone, mut out) = phone_of(&table, GREEN, None);
    out.take();
    let len = phone.log().len();
    let off_branch = |index: u32| {
        let mut entry = table.log().entries()[index as usize].clone();
        entry.prev = clovece::protocol::Digest([7; 32]);
        Message::Entries {
            entries: vec![entry],
        }
        .encode()
    };
    let asked_from = |out: &mut Sent| match out.take()[..] {
        [Message::Sync { from }] => from,
        ref other => panic!("{other:?}"),
    };
    for _ in 0..30 {
        let _ = phone.receive(RED, &off_branch(len - 1), &mut out);
        out.take();
    }
    let _ = phone.receive(BLUE, &off_branch(len - 1), &mut out);
    assert_eq!(asked_from(&mut out), len - 1 - 16);
}
