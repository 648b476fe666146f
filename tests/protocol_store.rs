//! Crash-safe persistence: a phone reloads its game after a restart, and a
//! damaged file gives a clear error with the intact prefix, never a panic or
//! a silently different game.

mod protocol_support;

use std::fs;
use std::path::Path;

use clovece::protocol::store::Damage;
use clovece::protocol::{Change, Colours, Kind, Message, Phone, Store, StoreError};
use clovece::rules::Colour;
use proptest::prelude::*;
use protocol_support::{config, move_due_for, phone_of, player, roll_due_for, table_until};

const GREEN: Colour = Colour::Green;

/// Green's phone saved to `dir` after `entries` entries of the game.
fn saved_game(dir: &Path, entries: u32) -> Phone {
    let table = table_until(|t| t.log().len() >= entries);
    phone_of(&table, GREEN, Some(dir)).0
}

fn log_file(dir: &Path) -> std::path::PathBuf {
    dir.join("log")
}

#[test]
fn a_restarted_phone_reloads_its_game_and_continues() {
    let dir = tempfile::tempdir().unwrap();
    let phone = saved_game(dir.path(), 60);
    let head = phone.log().head();
    drop(phone);
    let restored = Store::open(dir.path()).unwrap();
    assert_eq!(restored.log.head(), head);
    assert_eq!(restored.seat, GREEN);
    let keypair = player(&config(), GREEN).keypair;
    let mut phone = Phone::resume(restored, &keypair).unwrap();
    // It continues from where it stood: more entries are saved after the
    // reloaded ones.
    let table = table_until(|t| t.log().len() >= 90);
    let rest = Message::Entries {
        entries: table.log().entries()[60..].to_vec(),
    };
    let mut out = protocol_support::Sent::default();
    phone
        .receive(Colour::Red, &rest.encode(), &mut out)
        .unwrap();
    drop(phone);
    let again = Store::open(dir.path()).unwrap();
    assert_eq!(again.log.head(), table.log().head());
}

/// A game is open in one store at a time: a second (another window, or a
/// second `clovece join --data` on the folder) would append at its own end
/// and could sign another act in the place of one the first had sent. It
/// is refused with a clear error, and the game opens again once the first
/// store is closed.
#[test]
fn a_game_open_in_one_store_is_refused_to_another_until_it_closes() {
    let dir = tempfile::tempdir().unwrap();
    let phone = saved_game(dir.path(), 20);
    let head = phone.log().head();

    let second = Store::open(dir.path());
    assert!(
        matches!(second, Err(StoreError::InUse { .. })),
        "{:?}",
        second.map(|r| r.log.len())
    );
    let why = Store::open(dir.path()).unwrap_err().to_string();
    assert!(
        why.ends_with("is open in another window or process"),
        "{why}"
    );

    drop(phone);
    assert_eq!(Store::open(dir.path()).unwrap().log.head(), head);
}

/// Home asks whether a kept game is open (`Store::in_use`) while the
/// session resuming it may be opening it on another thread: the question
/// must never make that opening fail as if another window had the game.
#[test]
fn asking_whether_a_game_is_open_never_keeps_it_from_opening() {
    let dir = tempfile::tempdir().unwrap();
    drop(saved_game(dir.path(), 2));
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                Store::in_use(dir.path());
            }
        });
        for _ in 0..2000 {
            let opened = Store::open(dir.path());
            if opened.is_err() {
                done.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            assert!(opened.is_ok(), "{:?}", opened.map(|r| r.log.len()));
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
    });
}

/// Green moves, then the certificate that it is gone takes the move's
/// place: written to a temporary file and renamed over the log. A phone
/// stopped before the rename leaves the log as it was and part of the
/// temporary file (made here by hand; that a replacement that fails leaves
/// the log whole is `tests/protocol_store_full.rs`). On loading it finds
/// its move in its place again, the temporary file ignored, not an empty
/// place where its player could choose another move (which would read as
/// cheating).
#[test]
fn a_phone_stopped_while_an_entry_loses_its_place_finds_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let table = table_until(move_due_for(GREEN));
    let (mut phone, mut out) = phone_of(&table, GREEN, Some(dir.path()));
    let mv = table.log().state().game().unwrap().legal_moves()[0];
    phone.play(mv, &mut out).unwrap();
    let moved = phone.log().entries().last().unwrap().clone();
    let at = moved.index as usize;
    let before = fs::read(log_file(dir.path())).unwrap();
    let cert = Message::Entry(
        table
            .certificate(Change::Gone(Colours::one(GREEN)))
            .unwrap(),
    )
    .encode();
    // Stopped before the rename: half a temporary file beside the log.
    phone.receive(Colour::Red, &cert, &mut out).unwrap();
    drop(phone);
    let replaced = fs::read(log_file(dir.path())).unwrap();
    fs::write(log_file(dir.path()), &before).unwrap();
    fs::write(
        dir.path().join("log.k3Jv9a.tmp"),
        &replaced[..replaced.len() / 2],
    )
    .unwrap();
    let restored = Store::open(dir.path()).unwrap();
    assert_eq!(restored.log.len() as usize, at + 1);
    assert_eq!(restored.log.entries()[at], moved);
    // The certificate comes again and takes the place.
    let keypair = player(&config(), GREEN).keypair;
    let mut phone = Phone::resume(restored, &keypair).unwrap();
    phone.receive(Colour::Red, &cert, &mut out).unwrap();
    drop(phone);
    let log = Store::open(dir.path()).unwrap().log;
    assert!(matches!(log.entries()[at].kind, Kind::Absent(_)));
}

/// Each record of a log file holds the entry after the one before it. A
/// record for an earlier place is damage, never taken: here a certificate
/// that would win the place of the roll saved before it (and drop it),
/// which no honest write puts there. The game loads up to it.
#[test]
fn a_record_for_an_earlier_place_is_damage() {
    let table = table_until(roll_due_for(Colour::Blue));
    let mut rolled = table.clone();
    rolled.log_mut().offer(table.next_entry().unwrap()).unwrap();
    let mut certified = table.clone();
    let gone = table.certificate(Change::Gone(Colours::one(Colour::Blue)));
    certified.log_mut().offer(gone.unwrap()).unwrap();
    let [before, rolled_dir, certified_dir] = [(); 3].map(|_| tempfile::tempdir().unwrap());
    for (table, dir) in [
        (&table, &before),
        (&rolled, &rolled_dir),
        (&certified, &certified_dir),
    ] {
        drop(phone_of(table, GREEN, Some(dir.path())));
    }
    let place = fs::read(log_file(before.path())).unwrap().len();
    let mut bytes = fs::read(log_file(rolled_dir.path())).unwrap();
    bytes.extend_from_slice(&fs::read(log_file(certified_dir.path())).unwrap()[place..]);
    fs::write(log_file(rolled_dir.path()), bytes).unwrap();

    match Store::open(rolled_dir.path()) {
        Err(StoreError::Corrupt { why, intact, .. }) => {
            assert_eq!(why, Damage::OutOfPlace(table.log().len()));
            assert_eq!(intact.log.hashes(), rolled.log().hashes());
        }
        other => panic!("{:?}", other.map(|r| r.log.len())),
    }
}

#[test]
fn a_truncated_file_gives_a_clear_error_and_the_intact_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let phone = saved_game(dir.path(), 40);
    let full = phone.log().clone();
    drop(phone);
    let path = log_file(dir.path());
    let bytes = fs::read(&path).unwrap();
    // Cut the last record in half, as a crash in the middle of an append
    // would.
    fs::write(&path, &bytes[..bytes.len() - 20]).unwrap();
    let Err(StoreError::Corrupt {
        index, why, intact, ..
    }) = Store::open(dir.path())
    else {
        panic!("a truncated log must be reported");
    };
    assert_eq!(index, 39);
    assert_eq!(why, Damage::Truncated);
    // Kept as it was: a length made longer by a flipped bit reads the
    // same as a record cut short.
    assert_eq!(
        fs::read(dir.path().join("log.damaged")).unwrap(),
        &bytes[..bytes.len() - 20]
    );
    assert_eq!(intact.log.hashes(), &full.hashes()[..39]);
    // The phone goes on from the intact prefix, and its first write cuts
    // the damage off.
    let keypair = player(&config(), GREEN).keypair;
    let mut phone = Phone::resume(*intact, &keypair).unwrap();
    let last = Message::Entry(full.entries()[39].clone());
    let mut out = protocol_support::Sent::default();
    phone
        .receive(Colour::Red, &last.encode(), &mut out)
        .unwrap();
    drop(phone);
    let again = Store::open(dir.path()).unwrap();
    assert_eq!(again.log.head(), full.head());
}

/// A flipped bit that makes a length in the middle reach past the end
/// reads as a record cut short, as a crash while appending leaves: the
/// intact entries behind it, which the first write cuts off, are kept in
/// the copy.
#[test]
fn a_length_in_the_middle_made_to_reach_past_the_end_keeps_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    drop(saved_game(dir.path(), 40));
    let path = log_file(dir.path());
    let mut bytes = fs::read(&path).unwrap();
    // Each record: its length (4 bytes, little-endian), 4 check bytes,
    // the payload. The twentieth's length is made to reach past the end.
    let mut at = 0;
    for _ in 0..20 {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        at += 8 + len as usize;
    }
    let past = u32::try_from(bytes.len() - at).unwrap();
    bytes[at..at + 4].copy_from_slice(&past.to_le_bytes());
    fs::write(&path, &bytes).unwrap();
    let Err(StoreError::Corrupt { why, .. }) = Store::open(dir.path()) else {
        panic!("a damaged length must be reported");
    };
    assert_eq!(why, Damage::Truncated);
    assert_eq!(fs::read(dir.path().join("log.damaged")).unwrap(), bytes);
}

/// A copy kept of a log damaged earlier (it may hold the entries a flip
/// cut off) is not replaced by the end of a later crash while appending:
/// a log cut short, one whose last record is zeros (the file grew but the
/// power went before its data was written), or one whose last record was
/// torn after a block of it was written.
#[test]
fn a_log_cut_short_keeps_an_earlier_copy() {
    let dir = tempfile::tempdir().unwrap();
    drop(saved_game(dir.path(), 40));
    let path = log_file(dir.path());
    let bytes = fs::read(&path).unwrap();
    let earlier = dir.path().join("log.damaged");
    fs::write(&earlier, b"an earlier copy").unwrap();
    let cut = bytes.len() - 20;
    fs::write(&path, &bytes[..cut]).unwrap();
    let Err(StoreError::Corrupt { why, .. }) = Store::open(dir.path()) else {
        panic!("a truncated log must be reported");
    };
    assert_eq!(why, Damage::Truncated);
    assert_eq!(fs::read(&earlier).unwrap(), b"an earlier copy");
    let mut zeros = bytes.clone();
    zeros.extend([0; 40]);
    fs::write(&path, &zeros).unwrap();
    let Err(StoreError::Corrupt { .. }) = Store::open(dir.path()) else {
        panic!("a log ending in zeros must be reported");
    };
    assert_eq!(fs::read(&earlier).unwrap(), b"an earlier copy");
    // Torn after a block of its last record reached the disk: that
    // record's head and first bytes are there, the rest zeros.
    let mut torn = bytes.clone();
    let end = torn.len();
    torn[end - 10..].fill(0);
    fs::write(&path, &torn).unwrap();
    let Err(StoreError::Corrupt { why, .. }) = Store::open(dir.path()) else {
        panic!("a torn last record must be reported");
    };
    assert_eq!(why, Damage::Checksum);
    assert_eq!(fs::read(&earlier).unwrap(), b"an earlier copy");
}

#[test]
fn a_flipped_byte_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    drop(saved_game(dir.path(), 30));
    let path = log_file(dir.path());
    let mut bytes = fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    fs::write(&path, &bytes).unwrap();
    let error = Store::open(dir.path()).unwrap_err();
    let StoreError::Corrupt { why, intact, .. } = &error else {
        panic!("{error}");
    };
    assert!(matches!(why, Damage::Checksum | Damage::Length(_)), "{why}");
    assert!(intact.log.len() < 30);
    assert!(error.to_string().contains("intact"), "{error}");

    // The entries behind the flip are intact but cannot be trusted in
    // place: the first write cuts them off, and a copy of the file as it
    // was keeps them.
    let StoreError::Corrupt { intact, .. } = error else {
        unreachable!()
    };
    let keypair = player(&config(), GREEN).keypair;
    let mut phone = Phone::resume(*intact, &keypair).unwrap();
    let table = table_until(|t| t.log().len() >= 30);
    let next = Message::Entry(table.log().entries()[phone.log().len() as usize].clone());
    let mut out = protocol_support::Sent::default();
    phone
        .receive(Colour::Red, &next.encode(), &mut out)
        .unwrap();
    assert!(fs::read(&path).unwrap().len() < bytes.len(), "cut");
    assert_eq!(fs::read(dir.path().join("log.damaged")).unwrap(), bytes);
}

#[test]
fn records_out_of_order_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let phone = saved_game(dir.path(), 30);
    drop(phone);
    // Swap two whole records: each is well formed, but out of order.
    let path = log_file(dir.path());
    let bytes = fs::read(&path).unwrap();
    let mut records = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        records.push(bytes[at..at + 8 + len].to_vec());
        at += 8 + len;
    }
    records.swap(10, 11);
    fs::write(&path, records.concat()).unwrap();
    let Err(StoreError::Corrupt {
        index, why, intact, ..
    }) = Store::open(dir.path())
    else {
        panic!("a reordered log must be reported");
    };
    assert_eq!(index, 9);
    assert_eq!(why, Damage::OutOfPlace(10));
    assert_eq!(intact.log.len(), 9);
}

#[test]
fn a_damaged_secret_or_header_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    drop(saved_game(dir.path(), 5));
    let secret = dir.path().join("secret");
    let good = fs::read(&secret).unwrap();
    fs::write(&secret, &good[..good.len() - 1]).unwrap();
    assert!(matches!(
        Store::open(dir.path()),
        Err(StoreError::Secret {
            why: Damage::Truncated,
            ..
        })
    ));
    fs::write(&secret, &good).unwrap();
    let path = log_file(dir.path());
    let mut bytes = fs::read(&path).unwrap();
    bytes[12] ^= 1;
    fs::write(&path, &bytes).unwrap();
    assert!(matches!(
        Store::open(dir.path()),
        Err(StoreError::NoGame { .. })
    ));
    fs::remove_file(&secret).unwrap();
    let error = Store::open(dir.path()).unwrap_err();
    assert!(matches!(error, StoreError::Empty { .. }), "{error}");
    assert!(error.to_string().contains("no saved game"), "{error}");
    // A secret without a log: stopped while creating the game, before its
    // header was on disk. Nothing to resume, so nothing to keep.
    fs::write(&secret, &good).unwrap();
    fs::remove_file(&path).unwrap();
    assert!(matches!(
        Store::open(dir.path()),
        Err(StoreError::Empty { .. })
    ));
}

#[test]
fn the_header_alone_is_read_past_damaged_entries_and_refused_with_the_game() {
    let dir = tempfile::tempdir().unwrap();
    drop(saved_game(dir.path(), 5));
    let whole = Store::open(dir.path()).unwrap().log.header().clone();
    // The last entry damaged: the game loads up to it, its header whole.
    let path = log_file(dir.path());
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&path, &bytes).unwrap();
    assert!(matches!(
        Store::open(dir.path()),
        Err(StoreError::Corrupt { .. })
    ));
    assert_eq!(Store::header(dir.path()).unwrap(), whole);
    // A damaged header is no game, whichever reads it.
    bytes[12] ^= 1;
    fs::write(&path, &bytes).unwrap();
    assert!(matches!(
        Store::header(dir.path()),
        Err(StoreError::NoGame { .. })
    ));
}

/// Where each record of a log file ends, the header's first: a record is
/// its payload's length (4 bytes, little-endian), 4 check bytes and the
/// payload (src/protocol/store.rs).
fn record_ends(bytes: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        at += 8 + len as usize;
        ends.push(at);
    }
    assert_eq!(at, bytes.len(), "the file is whole records");
    ends
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Cut anywhere, the file loads as the longest prefix of the game it
    /// held whose records are whole: no game if the header is cut, else
    /// every whole entry, with the damage reported after them if a record
    /// is cut in the middle.
    #[test]
    fn a_log_cut_anywhere_loads_as_a_prefix(
        cut in any::<prop::sample::Index>(),
        on_boundary in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let phone = saved_game(dir.path(), 25);
        let full = phone.log().hashes().to_vec();
        drop(phone);
        let path = log_file(dir.path());
        let bytes = fs::read(&path).unwrap();
        let ends = record_ends(&bytes);
        prop_assert_eq!(ends.len(), full.len() + 1);
        // Half the cuts on a record boundary, which any byte rarely is.
        let keep = if on_boundary {
            ends[cut.index(ends.len())]
        } else {
            cut.index(bytes.len() + 1)
        };
        fs::write(&path, &bytes[..keep]).unwrap();
        // The entries whose records are whole in the kept bytes.
        let whole = ends[1..].iter().filter(|&&end| end <= keep).count();
        match Store::open(dir.path()) {
            // A cut on a record boundary leaves whole records: a shorter
            // log, as if the later appends had never happened.
            Ok(restored) => {
                prop_assert!(ends.contains(&keep), "cut at {} loads", keep);
                prop_assert_eq!(restored.log.hashes(), &full[..whole]);
            }
            Err(StoreError::Corrupt { intact, index, offset, why, .. }) => {
                prop_assert!(!ends.contains(&keep), "cut at {} is damage", keep);
                prop_assert_eq!(intact.log.hashes(), &full[..whole]);
                prop_assert_eq!(index as usize, whole);
                prop_assert_eq!(offset as usize, ends[whole]);
                prop_assert_eq!(why, Damage::Truncated);
            }
            Err(StoreError::NoGame { why, .. }) => {
                prop_assert!(keep < ends[0], "cut at {} after the header", keep);
                prop_assert_eq!(why, Damage::Truncated);
            }
            Err(other) => prop_assert!(false, "{}", other),
        }
    }
}

#[test]
fn an_entry_is_saved_in_its_own_place_never_after_a_gap() {
    let dir = tempfile::tempdir().unwrap();
    drop(saved_game(dir.path(), 8));
    let table = table_until(|t| t.log().len() >= 8);
    let entries = table.log().entries();
    let mut store = Store::open(dir.path()).unwrap().store;
    // Entries the phone took out of its log again (a save failed) are not
    // followed: the next entry for place 5 takes place 5.
    store.append(&entries[5]).unwrap();
    assert_eq!(store.len(), 6);
    let error = store.append(&entries[7]).unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::Behind {
                index: 7,
                saved: 6,
                ..
            }
        ),
        "{error}"
    );
    drop(store);
    let restored = Store::open(dir.path()).unwrap();
    assert_eq!(restored.log.hashes(), &table.log().hashes()[..6]);
}
