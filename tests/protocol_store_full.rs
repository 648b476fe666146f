//! A move that cannot be saved is taken back: it is not in the log, not
//! sent, and the player can make it again once the disk takes it (an act
//! sent but not on disk would, after a restart, let the player sign
//! another one for the same place, which reads as cheating).
//!
//! A test binary of its own: the write is made to fail by a file size
//! limit (`RLIMIT_FSIZE`), which holds for the whole process. Its one test
//! runs the cases one after the other: with two tests, the test harness
//! wrote one's result while the other's limit held, and when its output
//! was a file already larger than the limit, the write failed and the
//! harness died.

#![cfg(unix)]

mod protocol_support;

use std::fs;
use std::path::Path;

use clovece::protocol::sim::{Config, Table};
use clovece::protocol::{
    Act, Certificate, Change, Colours, DiceSecret, Due, Entry, Kind, Log, Message, Observation,
    PhoneError, Reveal, Store, StoreError,
};
use clovece::rules::{Colour, Seats};
use protocol_support::{
    acted_since, certified_gone, choice_for, move_due_for, phone_of, play_until, roll_due_for,
    table_until,
};

const RED: Colour = Colour::Red;
const GREEN: Colour = Colour::Green;
const BLUE: Colour = Colour::Blue;

/// While alive, no file of this process can grow past `bytes`: a write
/// past it fails with `EFBIG` (`SIGXFSZ`, which would end the process, is
/// ignored).
struct SizeLimit {
    before: libc::rlimit,
}

impl SizeLimit {
    fn new(bytes: u64) -> SizeLimit {
        let mut before = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: plain system calls on values owned here.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut before), 0);
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: before.rlim_max,
            };
            assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
        }
        SizeLimit { before }
    }
}

impl Drop for SizeLimit {
    fn drop(&mut self) {
        // SAFETY: as in `new`; the soft limit goes back up to where it was,
        // which the hard limit allows.
        unsafe {
            libc::setrlimit(libc::RLIMIT_FSIZE, &self.before);
        }
    }
}

/// Runs `write` while no file can grow past `bytes`, and checks that it
/// failed for that.
fn fails_past(bytes: u64, write: impl FnOnce() -> Result<(), PhoneError>) -> PhoneError {
    let limit = SizeLimit::new(bytes);
    let error = write().unwrap_err();
    drop(limit);
    assert!(
        matches!(error, PhoneError::Store(StoreError::Io { .. })),
        "{error}"
    );
    error
}

/// The log saved in `dir`, as a restart would find it, while the phone
/// that saves there still has it open (a copy is opened: a game is open in
/// one store at a time).
fn saved_log(dir: &Path) -> Log {
    let copy = tempfile::tempdir().unwrap();
    for file in ["log", "secret"] {
        fs::copy(dir.join(file), copy.path().join(file)).unwrap();
    }
    Store::open(copy.path()).unwrap().log
}

fn entries_sent(out: &mut protocol_support::Sent) -> usize {
    let sent = out.take();
    sent.iter()
        .filter(|m| matches!(m, Message::Entry(_)))
        .count()
}

#[test]
fn what_cannot_be_saved_is_taken_back() {
    a_move_that_cannot_be_saved_is_taken_back_and_not_sent();
    an_entry_from_another_phone_that_cannot_be_saved_is_taken_out_and_taken_again();
    a_vote_that_is_a_certificate_by_itself_leaves_only_once_it_is_saved();
    an_entry_that_takes_the_place_of_others_and_cannot_be_saved_gives_them_back();
    a_new_game_whose_log_cannot_be_written_leaves_no_game_behind();
    a_cheaters_winning_second_act_is_never_saved_without_the_proof();
    a_damaged_log_whose_copy_cannot_be_written_still_resumes();
    a_roll_that_cannot_be_saved_keeps_the_reveals_it_gathered();
}

/// Green's roll, taken back as it cannot be saved, keeps the others'
/// reveals it was made from: rolled again once the disk takes it, it
/// needs none sent again (their phones may be gone by then, and the game
/// would wait out the grace period for them). The roll leads to another
/// roll, so the reveals were for a roll no longer due when it was made.
fn a_roll_that_cannot_be_saved_keeps_the_reveals_it_gathered() {
    let dir = tempfile::tempdir().unwrap();
    let table = table_until(|t| {
        let mut after = t.clone();
        roll_due_for(GREEN)(t) && after.step() && roll_due_for(GREEN)(&after)
    });
    let (mut phone, mut out) = phone_of(&table, GREEN, Some(dir.path()));
    let Due::Roll { roll, .. } = phone.log().due() else {
        unreachable!()
    };
    for seat in table.log().state().present().iter().filter(|&c| c != GREEN) {
        let value = table.chain(seat).unwrap().reveal(roll).unwrap();
        let reveal = Message::Reveal(Reveal { roll, seat, value }).encode();
        phone.receive(seat, &reveal, &mut out).unwrap();
    }
    out.take();
    let len = phone.log().len();
    let saved = fs::read(dir.path().join("log")).unwrap();

    fails_past(saved.len() as u64, || phone.roll(&mut out));
    assert_eq!(phone.log().len(), len, "the roll is taken back");
    phone.roll(&mut out).unwrap();
    assert_eq!(
        phone.log().len(),
        len + 1,
        "rolled again, from the same reveals"
    );
    assert_eq!(phone.log().entries().last(), table_after(&table).last());
}

/// The entries of `table` one step on.
fn table_after(table: &Table) -> Vec<Entry> {
    let mut after = table.clone();
    after.step();
    after.log().entries().to_vec()
}

/// A damaged log is copied aside before its first write cuts the damage
/// off; a disk too full for the copy (which may be why the log is
/// damaged) does not keep the game from going on from its intact part.
fn a_damaged_log_whose_copy_cannot_be_written_still_resumes() {
    let dir = tempfile::tempdir().unwrap();
    drop(
        protocol_support::phone_of(
            &table_until(|t| t.log().len() >= 30),
            GREEN,
            Some(dir.path()),
        )
        .0,
    );
    let path = dir.path().join("log");
    let mut bytes = fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    fs::write(&path, &bytes).unwrap();

    let limit = SizeLimit::new(bytes.len() as u64 / 2);
    let opened = Store::open(dir.path());
    drop(limit);
    let Err(StoreError::Corrupt { intact, .. }) = opened else {
        panic!("{:?}", opened.map(|r| r.log.len()));
    };
    assert!(intact.log.len() < 30);
    assert!(!dir.path().join("log.damaged").exists());
}

/// Red moved at a turn with a choice, the game went on, and then red signs
/// the other move for that turn, which outranks the first (a rewind). A
/// phone that holds both writes the proof in their place in one save: if
/// that save fails, it still holds red's first move, and writes the proof
/// when the second comes again. (Saving the winning act first and the
/// proof after lost the first move with a failed second save, and with it
/// the proof, for good.)
fn a_cheaters_winning_second_act_is_never_saved_without_the_proof() {
    let at_place = table_until(choice_for(RED));
    let moves = at_place.log().state().game().unwrap().legal_moves();
    let [mut played, mut other] =
        [moves[0], moves[1]].map(|mv| at_place.sign(RED, Act::Move { mv, auto: false }).unwrap());
    if other.hash() > played.hash() {
        std::mem::swap(&mut played, &mut other);
    }
    let mut table = at_place.clone();
    table.log_mut().offer(played.clone()).unwrap();
    for _ in 0..6 {
        assert!(table.step(), "the game ended first");
    }
    let at = played.index as usize;
    let second = Message::Entry(other.clone()).encode();
    // How long the log is with the second move in the place: the proof,
    // which holds both moves, makes it longer.
    let with_second = {
        let dir = tempfile::tempdir().unwrap();
        let (mut phone, mut out) = phone_of(&at_place, BLUE, Some(dir.path()));
        phone.receive(RED, &second, &mut out).unwrap();
        fs::metadata(dir.path().join("log")).unwrap().len()
    };

    let dir = tempfile::tempdir().unwrap();
    let (mut phone, mut out) = phone_of(&table, BLUE, Some(dir.path()));
    let error = fails_past(with_second, || phone.receive(RED, &second, &mut out));
    assert!(!error.blames_sender());
    assert_eq!(phone.log().entries()[at], played, "the first move is kept");
    let kept = saved_log(dir.path());
    assert_eq!(kept.entries()[at], played, "and on disk");
    phone.receive(RED, &second, &mut out).unwrap();
    assert_eq!(
        Some(&phone.log().entries()[at]),
        Entry::expose(&played, &other).as_ref(),
        "the proof, once the disk takes it"
    );
}

/// A finished game's folder is where the command line's next game goes.
/// Creating it writes the new dice secret first, then the new log: if the
/// log cannot be written (or the process dies between the two), the folder
/// must not be left with the new secret beside the old game's log, which
/// no phone can open (`OtherGame`) and which would refuse every later game
/// there; it holds no game at all.
fn a_new_game_whose_log_cannot_be_written_leaves_no_game_behind() {
    let dir = tempfile::tempdir().unwrap();
    let mut finished = table_until(|_| true);
    while finished.step() {}
    drop(phone_of(&finished, GREEN, Some(dir.path())));
    assert!(Store::open(dir.path()).unwrap().log.result().is_some());

    let next = Table::new(&Config::new(12, Seats::for_players(3).unwrap())).unwrap();
    let secret = DiceSecret::from_bytes([3; 32]);
    // The secret (under a hundred bytes) fits, the header (hundreds) not.
    let limit = SizeLimit::new(200);
    let created = Store::create(dir.path(), next.log().header(), GREEN, &secret);
    drop(limit);
    assert!(matches!(created, Err(StoreError::Io { .. })), "{created:?}");
    assert!(matches!(
        Store::open(dir.path()),
        Err(StoreError::Empty { .. })
    ));
}

fn a_move_that_cannot_be_saved_is_taken_back_and_not_sent() {
    let dir = tempfile::tempdir().unwrap();
    let table = table_until(move_due_for(GREEN));
    let (mut phone, mut out) = phone_of(&table, GREEN, Some(dir.path()));
    out.take();
    let log = dir.path().join("log");
    let saved = fs::read(&log).unwrap();
    let len = phone.log().len();
    let mv = table.log().state().game().unwrap().legal_moves()[0];

    fails_past(saved.len() as u64, || phone.play(mv, &mut out));
    assert_eq!(phone.log().len(), len, "the move is taken back");
    assert_eq!(entries_sent(&mut out), 0, "and not sent");
    assert_eq!(fs::read(&log).unwrap(), saved);

    // Once the disk takes it, the same move is made, saved and sent.
    phone.play(mv, &mut out).unwrap();
    assert_eq!(phone.log().len(), len + 1);
    assert_eq!(entries_sent(&mut out), 1);
    let head = phone.log().head();
    drop(phone);
    assert_eq!(Store::open(dir.path()).unwrap().log.head(), head);
}

fn an_entry_from_another_phone_that_cannot_be_saved_is_taken_out_and_taken_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = table_until(|t| t.log().len() > 10);
    let (mut phone, mut out) = phone_of(&table, GREEN, Some(dir.path()));
    let len = phone.log().len();
    assert!(table.step(), "the game goes on");
    let next = Message::Entry(table.log().entries()[len as usize].clone()).encode();
    let log = dir.path().join("log");
    let saved = fs::read(&log).unwrap();

    let error = fails_past(saved.len() as u64, || {
        phone.receive(Colour::Red, &next, &mut out)
    });
    assert!(!error.blames_sender());
    // The log is not ahead of the file, so nothing later lands in its place.
    assert_eq!(phone.log().len(), len, "the entry is taken out");
    assert_eq!(fs::read(&log).unwrap(), saved);

    // It comes again, and is saved where it belongs.
    phone.receive(Colour::Red, &next, &mut out).unwrap();
    assert_eq!(phone.log().len(), len + 1);
    let head = phone.log().head();
    drop(phone);
    assert_eq!(Store::open(dir.path()).unwrap().log.head(), head);
}

/// Green is gone, so red's vote that blue is gone is a certificate by
/// itself. Sent and then not saved, it would let red go on past a
/// certificate blue holds, which blue takes for cheating (a late vote).
fn a_vote_that_is_a_certificate_by_itself_leaves_only_once_it_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    let table = certified_gone(GREEN);
    let (mut phone, mut out) = phone_of(&table, RED, Some(dir.path()));
    out.take();
    let len = phone.log().len();
    let blue_gone = Observation {
        gone: Colours::one(Colour::Blue),
        timer_expired: false,
    };
    let log = dir.path().join("log");
    let saved = fs::read(&log).unwrap();

    fails_past(saved.len() as u64, || phone.observe(blue_gone, &mut out));
    assert_eq!(phone.log().len(), len, "the certificate is taken back");
    assert_eq!(out.take(), vec![], "and neither it nor the vote is sent");

    // Once the disk takes it, the certificate is saved, then sent (and the
    // computer plays on for green and blue).
    phone.observe(blue_gone, &mut out).unwrap();
    let certificate = phone.log().entries()[len as usize].clone();
    assert!(matches!(certificate.kind, Kind::Absent(_)));
    assert!(out.take().contains(&Message::Entry(certificate)));
    let head = phone.log().head();
    drop(phone);
    assert_eq!(Store::open(dir.path()).unwrap().log.head(), head);
}

/// Red holds blue's roll, blue's move and its own act after them when
/// green's return, which outranks blue's roll, comes and cannot be saved.
/// Left with the log cut back to blue's roll, red could sign other acts or
/// votes where it has signed some already (its vote that blue is gone, a
/// certificate by itself, would expose it). So the log is given back
/// whole, as the file still holds it, also after a restart.
fn an_entry_that_takes_the_place_of_others_and_cannot_be_saved_gives_them_back() {
    let mut at_place = certified_gone(GREEN);
    play_until(&mut at_place, roll_due_for(Colour::Blue));
    let back = at_place.certificate(Change::Back(GREEN)).unwrap();
    let at = back.index as usize;
    let mut table = at_place.clone();
    play_until(&mut table, acted_since(RED, at));
    let dir = tempfile::tempdir().unwrap();
    let (mut phone, mut out) = phone_of(&table, RED, Some(dir.path()));
    out.take();
    let before = (phone.log().len(), phone.log().head());
    let saved = fs::read(dir.path().join("log")).unwrap();

    // The file as it stood at the place, and room for less than an entry.
    let short = tempfile::tempdir().unwrap();
    drop(phone_of(&at_place, RED, Some(short.path())));
    let room = fs::metadata(short.path().join("log")).unwrap().len() + 16;

    let back = Message::Entry(back).encode();
    fails_past(room, || phone.receive(Colour::Blue, &back, &mut out));
    assert_eq!((phone.log().len(), phone.log().head()), before);
    assert_eq!(fs::read(dir.path().join("log")).unwrap(), saved);
    let restored = saved_log(dir.path());
    assert_eq!((restored.len(), restored.head()), before);
    let sent = out.take();
    assert!(
        !sent
            .iter()
            .any(|m| matches!(m, Message::Entry(_) | Message::Vote(_))),
        "{sent:?}"
    );

    // The return comes again and is saved in its place.
    phone.receive(Colour::Blue, &back, &mut out).unwrap();
    assert!(matches!(
        phone.log().entries()[at].kind,
        Kind::Absent(Certificate {
            change: Change::Back(GREEN),
            ..
        })
    ));
    let head = phone.log().head();
    drop(phone);
    assert_eq!(Store::open(dir.path()).unwrap().log.head(), head);
}
