//! Absence, takeover, return and leaving, and the rule that decides between
//! two entries racing for one place: every honest phone ends with the same
//! log whatever order the entries reach it in.

mod protocol_support;

use clovece::protocol::sim::Table;
use clovece::protocol::{
    Act, Actor, Auto, Change, Colours, Control, Due, End, Entry, Kind, LogError, Message,
    Observation, Offered, Phone, Reveal,
};
use clovece::rules::Colour;
use protocol_support::{
    Sent, certified_gone, certified_gone_in, move_due_for, phone_of, play_until, prepared_phone_of,
    roll_due_for, table_until,
};

const RED: Colour = Colour::Red;
const BLUE: Colour = Colour::Blue;
const GREEN: Colour = Colour::Green;

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
    let cert = table.certificate(Change::Gone(Colours::one(BLUE))).unwrap();
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

/// The app's phones hold their reveal for a computer roll for a moment, so
/// that people can follow the computer's turns: nothing goes until the
/// phone lets it.
#[test]
fn a_paced_phone_reveals_for_a_computer_roll_only_once_released() {
    let table = certified_gone(BLUE);
    let Due::Roll { roll, .. } = table.log().due() else {
        panic!("the computer's roll for blue is due");
    };
    let revealed = |seat: Colour, out: &mut Sent| {
        out.take().iter().any(
            |m| matches!(m, Message::Reveal(Reveal { roll: r, seat: s, .. }) if *r == roll && *s == seat),
        )
    };
    let (mut red, mut out) = prepared_phone_of(&table, RED, None, Phone::pace_computer);
    assert_eq!(red.log().due(), table.log().due(), "caught up");
    assert_eq!(red.held(), Some(roll));
    red.tick(&mut out).unwrap();
    assert!(!revealed(RED, &mut out), "held");
    red.release(roll, &mut out).unwrap();
    assert!(revealed(RED, &mut out));
    assert_eq!(red.held(), None);
    // An unpaced phone (the command line's) reveals at once.
    let (green, mut out) = phone_of(&table, GREEN, None);
    assert_eq!(green.held(), None);
    assert!(revealed(GREEN, &mut out));
}

#[test]
fn a_returning_player_takes_the_seat_back_at_the_next_turn_boundary() {
    let mut table = certified_gone(BLUE);
    // Blue comes back in the middle of its own turn, which the computer is
    // playing: the turn stays the computer's.
    let back = table.certificate(Change::Back(BLUE)).unwrap();
    assert_eq!(table.log_mut().offer(back), Ok(Offered::Appended));
    let again = table.certificate(Change::Back(BLUE)).unwrap();
    assert_eq!(table.log_mut().offer(again), Err(LogError::NotAbsent(BLUE)));
    let mut computer_steps = 0;
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
        computer_steps += 1;
    }
    // Blue came back while its turn was due, so the computer played some of
    // it; otherwise this test checks nothing about the turn boundary.
    assert!(computer_steps > 0);
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
    let cert = table.certificate(Change::Gone(Colours::one(BLUE))).unwrap();
    let after = both_orders(&table, &late, &cert);
    assert!(matches!(
        after.log().entries().last().unwrap().kind,
        Kind::Absent(_)
    ));
}

#[test]
fn a_return_wins_over_a_computer_turn_racing_it_and_changes_nothing_in_it() {
    let table = certified_gone(GREEN);
    let computer = table.next_entry().unwrap();
    let back = table.certificate(Change::Back(GREEN)).unwrap();
    let mut after = both_orders(&table, &computer, &back);
    // The return won the place; the computer's roll comes right after it,
    // the same as before.
    assert_eq!(after.log().entries().last(), Some(&back));
    assert_eq!(after.next_entry().unwrap().kind, computer.kind);
    assert!(after.step());
}

#[test]
fn leaving_is_an_act_of_ones_own_turn() {
    let mut table = table_until(roll_due_for(RED));
    // Not in another player's turn, where it would claim their place.
    let leave = table.sign(GREEN, Act::Leave).unwrap();
    assert_eq!(
        table.log_mut().offer(leave),
        Err(LogError::NotYourTurn(GREEN))
    );
    let leave = table.sign(RED, Act::Leave).unwrap();
    assert_eq!(table.log_mut().offer(leave), Ok(Offered::Appended));
    assert_eq!(table.log().state().control(RED), Some(Control::Left));
    // The computer plays on for red, in the same turn.
    assert!(matches!(
        table.log().due(),
        Due::Roll {
            by: Actor::Computer,
            seat: Some(RED),
            ..
        }
    ));
}

/// A return voted at the place of a leave outranks it: the leave is out
/// of the log (`Log::leave` no longer finds it), and the player, still
/// in, must sign it again (a leaving phone waits for the others to hold
/// its leave, `net::play`).
#[test]
fn a_return_certified_at_the_place_of_a_leave_takes_the_leave_out() {
    let mut table = certified_gone(GREEN);
    play_until(&mut table, roll_due_for(RED));
    let back = table.certificate(Change::Back(GREEN)).unwrap();
    let place = table.log().entries().len();
    assert_eq!(table.log().leave(RED), None);
    let leave = table.sign(RED, Act::Leave).unwrap();
    assert_eq!(table.log_mut().offer(leave), Ok(Offered::Appended));
    assert_eq!(table.log().leave(RED), Some(place));
    assert!(table.log().over_for(RED));
    assert!(matches!(
        table.log_mut().offer(back),
        Ok(Offered::Replaced { .. })
    ));
    assert_eq!(table.log().leave(RED), None);
    assert_eq!(table.log().state().control(RED), Some(Control::Player));
    assert!(!table.log().over_for(RED));
}

#[test]
fn a_phone_told_to_leave_leaves_in_its_next_turn() {
    let early = table_until(roll_due_for(RED));
    let (mut green, mut out) = phone_of(&early, GREEN, None);
    green.leave(&mut out).unwrap();
    assert_eq!(green.log().len(), early.log().len());
    assert_eq!(green.log().state().control(GREEN), Some(Control::Player));
    // Red's and blue's turns reach green's phone; then its own is due.
    let mut later = early.clone();
    play_until(&mut later, roll_due_for(GREEN));
    let rest = Message::Entries {
        entries: later.log().entries()[early.log().len() as usize..].to_vec(),
    };
    out.take();
    green.receive(RED, &rest.encode(), &mut out).unwrap();
    let left = green.log().entries()[later.log().len() as usize].clone();
    assert_eq!(left.author(), Some(GREEN));
    assert_eq!(green.log().state().control(GREEN), Some(Control::Left));
    assert!(out.take().contains(&Message::Entry(left)));
}

/// Green's phone was certified gone and comes back: it asks by its vote,
/// every phone present votes too, and each assembles the same certificate.
#[test]
fn a_phone_back_from_absence_is_voted_back_by_everyone_present() {
    let table = certified_gone(GREEN);
    let mut phones: Vec<(Colour, clovece::protocol::Phone, Sent)> = [RED, BLUE, GREEN]
        .into_iter()
        .map(|seat| {
            let (phone, out) = phone_of(&table, seat, None);
            (seat, phone, out)
        })
        .collect();
    // Deliver everything sent until nobody sends any more.
    loop {
        let mut sent = Vec::new();
        for (seat, _, out) in &mut phones {
            sent.extend(out.0.drain(..).map(|(to, bytes)| (*seat, to, bytes)));
        }
        if sent.is_empty() {
            break;
        }
        for (from, to, bytes) in sent {
            for (seat, phone, out) in &mut phones {
                if *seat != from && to.is_none_or(|to| to == *seat) {
                    // Refusing a message (one already held, say) is
                    // fine; blaming an honest phone for it is not.
                    if let Err(e) = phone.receive(from, &bytes, out) {
                        assert!(!e.blames_sender(), "{from} is blamed: {e}");
                    }
                }
            }
        }
    }
    for (_, phone, _) in &phones {
        assert!(phone.log().state().returning().contains(GREEN));
        assert_eq!(phone.log().head(), phones[0].1.log().head());
    }
    assert!(phones[0].1.log().entries().iter().any(|e| matches!(
        &e.kind,
        Kind::Absent(c) if c.change == Change::Back(GREEN) && c.votes.len() == 3
    )));
}

/// Whether `sent` holds `voter`'s vote that `seat` is back.
fn votes_back(sent: &[Message], voter: Colour, seat: Colour) -> bool {
    sent.iter().any(
        |m| matches!(m, Message::Vote(v) if v.voter == voter && v.change == Change::Back(seat)),
    )
}

/// A phone found gone again is voted back only after the game made 8
/// rolls without it: one that comes back only to withhold its next reveal
/// would otherwise stall every turn of the game for the grace period.
#[test]
fn a_phone_found_gone_again_is_voted_back_only_after_a_wait() {
    let table = certified_gone(GREEN);
    assert!(
        table.log().state().may_return(GREEN),
        "the first time at once"
    );
    // Green comes back, takes its seat, and is found gone again: the
    // table then, and the rolls made by then.
    let gone_again = |mut table: Table| {
        let back = table.certificate(Change::Back(GREEN)).unwrap();
        table.log_mut().offer(back).unwrap();
        play_until(&mut table, |t| {
            t.log().state().control(GREEN) == Some(Control::Player)
        });
        let table = certified_gone_in(table, GREEN);
        let gone_at = table.log().state().rolls();
        (table, gone_at)
    };
    // Green may return `wait` rolls after `gone_at`, not one sooner.
    let waits = |table: &mut Table, gone_at: u32, wait: u32| {
        play_until(table, |t| t.log().state().rolls() >= gone_at + wait - 1);
        assert!(!table.log().state().may_return(GREEN));
        play_until(table, |t| t.log().state().rolls() == gone_at + wait);
        assert!(table.log().state().may_return(GREEN));
    };
    // Each phone as it would be at `table`'s head: green's asks to come
    // back, and red's seconds green's vote, only once the wait is over.
    let asks = |table: &Table| {
        let (_, mut green) = phone_of(table, GREEN, None);
        let (mut red, mut red_out) = phone_of(table, RED, None);
        let vote = table.vote(Change::Back(GREEN), GREEN).unwrap();
        red_out.take();
        red.receive(GREEN, &Message::Vote(vote).encode(), &mut red_out)
            .unwrap();
        (
            votes_back(&green.take(), GREEN, GREEN),
            votes_back(&red_out.take(), RED, GREEN),
        )
    };

    let (mut table, gone_at) = gone_again(table);
    assert_eq!(asks(&table), (false, false));
    waits(&mut table, gone_at, 8);
    assert_eq!(asks(&table), (true, true));
    // A third absence waits twice as long.
    let (mut table, gone_at) = gone_again(table);
    waits(&mut table, gone_at, 16);
}

#[test]
fn withholding_ones_own_roll_is_on_the_record() {
    let mut table = certified_gone(BLUE);
    while table.step() {}
    let result = table.log().result().unwrap();
    assert_eq!(result.withheld[BLUE.index()], 1);
    assert_eq!(result.absences[BLUE.index()], 1);
    assert_eq!(result.withheld[RED.index()], 0);
}

/// Each player in `seats` leaves in their next turn, the computer playing
/// on meanwhile.
fn leave_in_turn(table: &mut Table, seats: &[Colour]) {
    let mut left = Vec::new();
    while left.len() < seats.len() {
        match table.log().due() {
            Due::Roll {
                by: Actor::Player(seat),
                ..
            }
            | Due::Move {
                by: Actor::Player(seat),
                ..
            } if seats.contains(&seat) && !left.contains(&seat) => {
                let leave = table.sign(seat, Act::Leave).unwrap();
                assert_eq!(table.log_mut().offer(leave), Ok(Offered::Appended));
                left.push(seat);
            }
            _ => assert!(table.step(), "the game ended first"),
        }
    }
}

#[test]
fn when_every_player_leaves_the_game_is_abandoned() {
    let mut table = table_until(|t| t.log().len() > 12);
    leave_in_turn(&mut table, &[RED, BLUE, GREEN]);
    assert_eq!(table.log().due(), Due::Over(End::Abandoned));
    let result = table.log().result().unwrap();
    assert_eq!(result.left.len(), 3);
    assert_eq!(result.placings, [Some(3), Some(3), Some(3), None]);
}

#[test]
fn a_player_who_left_cannot_come_back() {
    let mut table = table_until(|t| t.log().len() > 12);
    leave_in_turn(&mut table, &[BLUE]);
    let at = table.log().len();
    let back = table.certificate(Change::Back(BLUE)).unwrap();
    assert_eq!(table.log_mut().offer(back), Err(LogError::NotAbsent(BLUE)));
    // The computer plays blue to the end.
    while table.step() {}
    assert!(matches!(table.log().due(), Due::Over(End::Won(_))));
    assert!(
        table
            .log()
            .entries()
            .iter()
            .all(|e| e.author() != Some(BLUE) || e.index < at)
    );
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

/// Catch-up reads on from the batch it got: after a full batch of entries
/// the phone already holds it asks for the batch after it, not for what
/// follows its own log's end. Asking from there skipped a fork lying more
/// than one batch back, and the search for it started over for ever
/// (docs/protocol.md, "Catch-up"); a batch that is not full ends it.
#[test]
fn a_full_batch_of_known_entries_asks_for_the_next_one() {
    // `MAX_BATCH` in `protocol::wire`: the most entries a batch holds.
    const BATCH: usize = 128;
    let table = table_until(|t| t.log().len() as usize > 2 * BATCH + 10);
    let (mut phone, mut sent) = phone_of(&table, GREEN, None);
    let asked = |phone: &mut Phone, sent: &mut Sent, entries: &[Entry]| {
        sent.take();
        let batch = Message::Entries {
            entries: entries.to_vec(),
        };
        phone.receive(RED, &batch.encode(), sent).unwrap();
        (sent.take().into_iter())
            .filter_map(|m| match m {
                Message::Sync { from } => Some(from),
                _ => None,
            })
            .collect::<Vec<_>>()
    };

    let entries = table.log().entries();
    assert_eq!(
        asked(&mut phone, &mut sent, &entries[..BATCH]),
        [BATCH as u32]
    );
    assert_eq!(
        asked(&mut phone, &mut sent, &entries[BATCH..2 * BATCH]),
        [2 * BATCH as u32]
    );
    assert_eq!(
        asked(&mut phone, &mut sent, &entries[..BATCH - 1]),
        [0u32; 0]
    );
}

/// Whether `sent` holds a vote that some player is gone.
fn votes_gone(sent: &[Message]) -> bool {
    sent.iter()
        .any(|m| matches!(m, Message::Vote(v) if matches!(v.change, Change::Gone(_))))
}

/// A report that a player is gone is for the head it was watched at: the
/// watch measures from the last entry. Once an entry moves the head on
/// (here the player's own move: not gone after all), the phone votes them
/// gone only when its watch, measuring from there, reports it again.
#[test]
fn a_player_reported_gone_is_not_voted_gone_at_the_next_entry_without_a_new_report() {
    let mut table = table_until(move_due_for(BLUE));
    let (mut phone, mut out) = phone_of(&table, RED, None);
    out.take();
    let blue_gone = Observation {
        gone: Colours::one(BLUE),
        timer_expired: false,
    };
    phone.observe(blue_gone, &mut out).unwrap();
    assert!(votes_gone(&out.take()), "red votes blue gone");

    let len = phone.log().len();
    assert!(table.step(), "blue moves after all");
    let blue_moved = Message::Entry(table.log().entries()[len as usize].clone());
    phone.receive(BLUE, &blue_moved.encode(), &mut out).unwrap();
    assert_eq!(phone.log().len(), len + 1);
    let sent = out.take();
    assert!(!votes_gone(&sent), "{sent:?}");

    // Reported again at the new head, blue is voted gone there.
    phone.observe(blue_gone, &mut out).unwrap();
    assert!(votes_gone(&out.take()));
}

/// The move a phone plays for its player as their time ran out is in the
/// log as such, so that every other phone can say so too.
#[test]
fn the_others_learn_from_the_log_whose_time_ran_out() {
    let table = table_until(move_due_for(RED));
    let (mut red, mut out) = phone_of(&table, RED, None);
    let (mut blue, mut blues) = phone_of(&table, BLUE, None);
    out.take();
    let expired = Observation {
        gone: Colours::NONE,
        timer_expired: true,
    };
    red.observe(expired, &mut out).unwrap();
    let played = out.take();
    assert!(!played.is_empty(), "red's phone moved for red");
    for message in played {
        if let Err(e) = blue.receive(RED, &message.encode(), &mut blues) {
            assert!(!e.blames_sender(), "red is blamed: {e}");
        }
    }
    assert_eq!(red.log().timed_out(), [1, 0, 0, 0]);
    assert_eq!(blue.log().hashes(), red.log().hashes());
    assert_eq!(blue.log().timed_out(), [1, 0, 0, 0]);
    // A move the player made is not counted.
    assert_eq!(table.log().timed_out(), [0; 4]);
}

/// A phone counts each turn of its player that the computer took over as
/// their timer ran out, once however often its watch says so (the app
/// says "time ran out — the computer stepped in").
#[test]
fn a_phone_counts_the_turns_its_computer_took_over_once_each() {
    let table = table_until(roll_due_for(RED));
    let (mut phone, mut out) = phone_of(&table, RED, None);
    assert_eq!(phone.timeouts(), 0);
    let expired = Observation {
        gone: Colours::NONE,
        timer_expired: true,
    };
    phone.observe(expired, &mut out).unwrap();
    phone.observe(expired, &mut out).unwrap();
    assert_eq!(phone.timeouts(), 1);
    // Not this player's turn: nothing is taken over.
    let table = table_until(roll_due_for(BLUE));
    let (mut phone, mut out) = phone_of(&table, RED, None);
    phone.observe(expired, &mut out).unwrap();
    assert_eq!(phone.timeouts(), 0);
}

/// A player who tapped the die in time, whose roll waits on a reveal of
/// a phone that dropped, did not run out of time: their phone does not
/// take the turn over (it moved for them once the roll came, and the app
/// said their time ran out).
#[test]
fn a_roll_tapped_in_time_is_not_taken_over_while_it_waits_on_a_reveal() {
    let table = table_until(roll_due_for(RED));
    let (mut phone, mut out) = phone_of(&table, RED, None);
    assert!(phone.waiting().mine);
    phone.roll(&mut out).unwrap();
    assert!(!phone.waiting().mine, "the roll waits on the others now");
    let expired = Observation {
        gone: Colours::NONE,
        timer_expired: true,
    };
    phone.observe(expired, &mut out).unwrap();
    assert_eq!(phone.timeouts(), 0);
}
