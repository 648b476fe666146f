//! Absence, takeover, return and leaving, and the rule that decides between
//! two entries racing for one place: every honest phone ends with the same
//! log whatever order the entries reach it in.

mod protocol_support;

use clovece::protocol::sim::Table;
use clovece::protocol::{
    Act, Actor, Auto, Colours, Control, Due, End, Entry, Kind, LogError, Message, Offered, Reveal,
    Signed,
};
use clovece::rules::Colour;
use protocol_support::{Sent, certificate, phone_of, table_until};

const RED: Colour = Colour::Red;
const BLUE: Colour = Colour::Blue;
const GREEN: Colour = Colour::Green;

fn roll_due_for(seat: Colour) -> impl Fn(&Table) -> bool {
    move |t| {
        t.log().len() > 10
            && matches!(t.log().due(), Due::Roll { by: Actor::Player(s), .. } if s == seat)
    }
}

/// Offers `first` then `second` to a copy of `table`, and the other way
/// round to another copy; both must end with the same log.
fn both_orders(table: &Table, first: &Entry, second: &Entry) -> Table {
    let mut a = table.clone();
    let mut b = table.clone();
    a.log_mut().offer(first.clone()).unwrap();
    let _ = a.log_mut().offer(second.clone());
    b.log_mut().offer(second.clone()).unwrap();
    let _ = b.log_mut().offer(first.clone());
    assert_eq!(a.log().hashes(), b.log().hashes());
    a
}

#[test]
fn an_absent_players_seat_is_played_by_the_computer_without_their_reveals() {
    let mut table = table_until(roll_due_for(BLUE));
    let cert = certificate(&table, Colours::one(BLUE));
    assert_eq!(table.log_mut().offer(cert), Ok(Offered::Appended));
    assert_eq!(table.log().state().control(BLUE), Some(Control::Absent));
    let Due::Roll { by, seat, .. } = table.log().due() else {
        panic!("blue's roll is still due");
    };
    assert_eq!((by, seat), (Actor::Computer, Some(BLUE)));
    // The computer's roll takes only the present players' reveals.
    let roll = table.next_entry().unwrap();
    let Kind::Computer(Auto::Roll(reveals)) = &roll.kind else {
        panic!("{roll:?}");
    };
    assert_eq!(reveals.get(BLUE), None);
    let mut with_blue = *reveals;
    let roll_no = table.log().state().rolls() + 1;
    with_blue.set(BLUE, table.chain(BLUE).unwrap().reveal(roll_no).unwrap());
    let sneaky = Entry {
        kind: Kind::Computer(Auto::Roll(with_blue)),
        ..roll.clone()
    };
    assert_eq!(
        table.log_mut().offer(sneaky),
        Err(LogError::UnexpectedReveal(BLUE))
    );
    assert_eq!(table.log_mut().offer(roll), Ok(Offered::Appended));
}

#[test]
fn a_returning_player_takes_the_seat_back_at_the_next_turn_boundary() {
    let mut table = table_until(roll_due_for(BLUE));
    let cert = certificate(&table, Colours::one(BLUE));
    table.log_mut().offer(cert).unwrap();
    // Blue comes back in the middle of its own turn, which the computer is
    // playing: the turn stays the computer's.
    let back = table.sign(BLUE, Act::Return).unwrap();
    assert_eq!(table.log_mut().offer(back), Ok(Offered::Appended));
    let returning = table.sign(BLUE, Act::Return).unwrap();
    assert_eq!(
        table.log_mut().offer(returning),
        Err(LogError::NotAbsent(BLUE))
    );
    while matches!(
        table.log().due(),
        Due::Roll {
            seat: Some(BLUE),
            ..
        } | Due::Move { seat: BLUE, .. }
    ) {
        assert_eq!(table.log().state().control(BLUE), Some(Control::Absent));
        assert!(table.log().state().returning().contains(BLUE));
        assert!(matches!(
            table.log().due(),
            Due::Roll {
                by: Actor::Computer,
                ..
            } | Due::Move {
                by: Actor::Computer,
                ..
            }
        ));
        assert!(table.step());
    }
    // The turn passed: blue plays again, and its reveals (skipping the rolls
    // it missed) are taken.
    assert_eq!(table.log().state().control(BLUE), Some(Control::Player));
    for _ in 0..60 {
        assert!(table.step());
    }
}

#[test]
fn a_certificate_wins_over_the_absent_players_late_roll() {
    let table = table_until(roll_due_for(BLUE));
    let late = table.next_entry().unwrap();
    let cert = certificate(&table, Colours::one(BLUE));
    let after = both_orders(&table, &late, &cert);
    assert!(matches!(
        after.log().entries().last().unwrap().kind,
        Kind::Absent(_)
    ));
}

#[test]
fn a_computer_turn_wins_over_a_return_racing_it() {
    let mut table = table_until(roll_due_for(GREEN));
    let cert = certificate(&table, Colours::one(GREEN));
    table.log_mut().offer(cert).unwrap();
    let computer = table.next_entry().unwrap();
    let back = table.sign(GREEN, Act::Return).unwrap();
    let mut after = both_orders(&table, &computer, &back);
    assert_eq!(after.log().entries().last(), Some(&computer));
    // Green signs its return again after the computer's roll.
    let back = after.sign(GREEN, Act::Return).unwrap();
    assert_eq!(after.log_mut().offer(back), Ok(Offered::Appended));
    assert!(after.log().state().returning().contains(GREEN));
    assert!(after.step());
}

#[test]
fn leaving_wins_over_a_return_racing_it() {
    let mut table = table_until(roll_due_for(GREEN));
    let cert = certificate(&table, Colours::one(GREEN));
    table.log_mut().offer(cert).unwrap();
    let back = table.sign(GREEN, Act::Return).unwrap();
    let leave = table.sign(RED, Act::Leave).unwrap();
    let after = both_orders(&table, &back, &leave);
    assert_eq!(after.log().entries().last(), Some(&leave));
}

#[test]
fn leaving_never_undoes_a_roll() {
    let table = table_until(roll_due_for(RED));
    let roll = table.next_entry().unwrap();
    let leave = table.sign(GREEN, Act::Leave).unwrap();
    let mut after = both_orders(&table, &roll, &leave);
    assert_eq!(after.log().entries().last(), Some(&roll));
    // Green signs its leaving again after the roll.
    let leave = after.sign(GREEN, Act::Leave).unwrap();
    assert_eq!(after.log_mut().offer(leave), Ok(Offered::Appended));
    assert_eq!(after.log().state().control(GREEN), Some(Control::Left));
}

#[test]
fn a_phone_whose_leaving_lost_a_race_signs_it_again() {
    let table = table_until(roll_due_for(RED));
    let roll = table.next_entry().unwrap();
    let (mut green, mut out) = phone_of(&table, GREEN, None);
    out.take();
    green.leave(&mut out).unwrap();
    let len = table.log().len() as usize;
    assert_eq!(green.log().len() as usize, len + 1);
    green
        .receive(RED, &Message::Entry(roll.clone()).encode(), &mut out)
        .unwrap();
    let entries = green.log().entries();
    assert_eq!(entries[len], roll);
    assert_eq!(green.log().state().control(GREEN), Some(Control::Left));
    let again = entries.last().unwrap();
    assert_eq!(again.index as usize, len + 1);
    assert!(out.take().contains(&Message::Entry(again.clone())));
}

#[test]
fn withholding_ones_own_roll_is_on_the_record() {
    let mut table = table_until(roll_due_for(BLUE));
    let cert = certificate(&table, Colours::one(BLUE));
    table.log_mut().offer(cert).unwrap();
    while table.step() {}
    let result = table.log().result().unwrap();
    assert_eq!(result.withheld[BLUE.index()], 1);
    assert_eq!(result.absences[BLUE.index()], 1);
    assert_eq!(result.withheld[RED.index()], 0);
}

#[test]
fn when_every_player_leaves_the_game_is_abandoned() {
    let mut table = table_until(|t| t.log().len() > 12);
    for seat in [RED, BLUE, GREEN] {
        let leave = table.sign(seat, Act::Leave).unwrap();
        table.log_mut().offer(leave).unwrap();
    }
    assert_eq!(table.log().due(), Due::Over(End::Abandoned));
    let result = table.log().result().unwrap();
    assert_eq!(result.left.len(), 3);
    assert_eq!(result.placings, [Some(3), Some(3), Some(3), None]);
    let late = table.sign(RED, Act::Return).unwrap();
    assert!(table.log_mut().offer(late).is_err());
}

#[test]
fn a_player_who_left_cannot_come_back() {
    let mut table = table_until(|t| t.log().len() > 12);
    let leave = table.sign(BLUE, Act::Leave).unwrap();
    table.log_mut().offer(leave).unwrap();
    let back = table.sign(BLUE, Act::Return).unwrap();
    assert_eq!(table.log_mut().offer(back), Err(LogError::NotAbsent(BLUE)));
    let again = table.sign(BLUE, Act::Leave).unwrap();
    assert_eq!(
        table.log_mut().offer(again),
        Err(LogError::AlreadyLeft(BLUE))
    );
    // The computer plays blue to the end.
    while table.step() {}
    assert!(matches!(table.log().due(), Due::Over(End::Won(_))));
    assert!(table.log().entries().iter().all(|e| !matches!(
        e.kind,
        Kind::Player(Signed {
            seat: BLUE,
            act: Act::Roll(_) | Act::Move { .. },
            ..
        })
    ) || e.index < 13));
}

/// A phone that stops right after its reveal reached one other phone only:
/// that phone passes the reveal on to the one that says it misses it, so
/// the two agree that the game waits on no one. Otherwise one would vote
/// the stopped phone gone and the other never would, and the game would
/// wait for ever.
#[test]
fn a_reveal_that_reached_one_phone_only_is_passed_on_to_the_others() {
    let table = table_until(roll_due_for(RED));
    let roll = table.log().state().rolls() + 1;
    let (mut red, _) = phone_of(&table, RED, None);
    let (mut blue, mut from_blue) = phone_of(&table, BLUE, None);
    // Blue's own reveal (sent once it caught up) reaches red; green's
    // reaches blue only.
    for (_, bytes) in from_blue.0.drain(..) {
        red.receive(BLUE, &bytes, &mut Sent::default()).unwrap();
    }
    let value = table.chain(GREEN).unwrap().reveal(roll).unwrap();
    let green = Message::Reveal(Reveal {
        roll,
        seat: GREEN,
        value,
    });
    blue.receive(GREEN, &green.encode(), &mut Sent::default())
        .unwrap();
    assert_eq!(red.waiting().reveals, Colours::one(GREEN));
    assert_eq!(blue.waiting().reveals, Colours::NONE);

    let mut from_red = Sent::default();
    red.tick(&mut from_red).unwrap();
    let mut answer = Sent::default();
    for (_, bytes) in from_red.0.drain(..) {
        blue.receive(RED, &bytes, &mut answer).unwrap();
    }
    for (to, bytes) in &answer.0 {
        assert_eq!(*to, Some(RED), "the answer goes to the phone that asked");
        red.receive(BLUE, bytes, &mut Sent::default()).unwrap();
    }
    assert!(
        answer
            .take()
            .iter()
            .any(|m| matches!(m, Message::Reveal(r) if r.seat == GREEN && r.roll == roll)),
        "blue passes green's reveal on"
    );
    assert_eq!(red.waiting().reveals, Colours::NONE);
}
