//! Writes the fuzz targets' seeds (docs/protocol.md, "Tests and fuzzing"),
//! each in its own file, so that the fuzzers start from well-formed input:
//! for `decode_message` one message of every kind from a real game, for
//! `decode_lobby` one lobby frame of every kind, a batch of them, and a
//! room's links and code, for `scan_frame` those links and code as QR
//! codes, and for `local_game` the kept files of games on one device under
//! each rule set. Run again when a wire or file format changes:
//!
//! ```text
//! cargo run --example fuzz_seeds -- fuzz/seeds
//! ```

use std::path::{Path, PathBuf};

use clovece::app::local::GameFile;
use clovece::app::offline::{OfflineGame, Player, Setup};
use clovece::bot::Level;
use clovece::net::room::{Frame, Listing, Lobby, Refusal, SeatView};
use clovece::net::wire::Batch;
use clovece::net::{RoomId, RoomSecret, Ticket};
use clovece::protocol::sim::{Config, Table};
use clovece::protocol::{
    Act, Actor, Change, Colours, Due, Entry, Message, Reveal, Theme, TurnTimer,
};
use clovece::rules::{Colour, Die, FirstPlayer, HouseRules, Next, RuleSet, Seats};
use libp2p::Multiaddr;
use libp2p::identity::Keypair;
use serde_bytes::ByteBuf;

fn main() {
    let root: PathBuf = std::env::args_os()
        .nth(1)
        .map_or_else(|| "fuzz/seeds".into(), PathBuf::from);
    let messages: Vec<Vec<u8>> = game_messages().iter().map(Message::encode).collect();
    write(&root.join("decode_message"), &messages);
    let lobby = lobby_inputs(&messages[0]);
    write(&root.join("scan_frame"), &qr_frames(&lobby));
    write(&root.join("decode_lobby"), &lobby);
    write(&root.join("local_game"), &local_games());
}

/// For `local_game`: the kept file of a game on one device between
/// computer players, after 60 steps, under the classic rules, the Croatian
/// preset (whose opening rolls) and the Matfyz rules.
fn local_games() -> Vec<Vec<u8>> {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let file = GameFile::in_folder(folder.path());
    let rule_sets = [
        RuleSet::Classic(HouseRules::default()),
        RuleSet::Classic(HouseRules::CROATIAN),
        RuleSet::Matfyz,
    ];
    rule_sets
        .into_iter()
        .map(|rules| {
            let setup = Setup {
                players: vec![
                    Player::Human { name: "Ana".into() },
                    Player::Computer { level: Level::Easy },
                    Player::Computer { level: Level::Hard },
                ],
                rules,
                timer: TurnTimer::Seconds30,
            };
            let faces = [6, 6, 3, 1, 5, 6, 2, 4];
            let mut dice = faces.iter().cycle().map(|&n| Die::new(n).expect("a face"));
            let mut roll = || dice.next().expect("an endless die");
            let mut game = OfflineGame::new(setup, &mut roll).expect("a game");
            for _ in 0..60 {
                match game.next() {
                    Next::Roll { .. } => game.roll(roll()).map(|_| ()),
                    // The person's moves too, as the computer would.
                    Next::Move { .. } => game.stand_in(&mut roll).map(|_| ()),
                    Next::Won { .. } => break,
                }
                .expect("a step");
            }
            file.save(&game).expect("the game is kept");
            std::fs::read(folder.path().join("local-game")).expect("the kept file")
        })
        .collect()
}

/// For `scan_frame`: each of the lobby's texts (two links and a code) that
/// is one as a QR code, two pixels a module in a quiet zone of four
/// modules, the frame's width in its first byte.
fn qr_frames(lobby: &[Vec<u8>]) -> Vec<Vec<u8>> {
    lobby
        .iter()
        .filter(|bytes| std::str::from_utf8(bytes).is_ok() && bytes.len() < 200)
        .filter_map(|text| {
            let code = qrcode::QrCode::new(text).ok()?;
            let modules = code.width();
            let colours = code.to_colors();
            let side = 2 * (modules + 8);
            let width = u8::try_from(side).ok()?;
            let mut frame = vec![width];
            for y in 0..side {
                for x in 0..side {
                    let (mx, my) = ((x / 2).checked_sub(4), (y / 2).checked_sub(4));
                    let dark = matches!((mx, my), (Some(mx), Some(my))
                        if mx < modules && my < modules
                            && colours[my * modules + mx] == qrcode::Color::Dark);
                    frame.push(if dark { 20 } else { 230 });
                }
            }
            Some(frame)
        })
        .collect()
}

/// Writes each of `seeds` to its own file in `dir`.
fn write(dir: &Path, seeds: &[Vec<u8>]) {
    std::fs::create_dir_all(dir).expect("the seeds' folder");
    for (n, bytes) in seeds.iter().enumerate() {
        std::fs::write(dir.join(format!("seed{n:02}")), bytes).expect("a seed");
    }
    println!("{} seeds in {}", seeds.len(), dir.display());
}

/// One message of every kind, from a real game.
fn game_messages() -> Vec<Message> {
    let mut table =
        Table::new(&Config::new(7, Seats::for_players(3).expect("3 players"))).expect("a game");
    let mut messages = Vec::new();
    // The opening and some turns: rolls, moves, computer turns.
    while table.log().len() < 30 {
        messages.push(Message::Entry(table.next_entry().expect("an entry")));
        assert!(table.step());
    }
    // Green is certified gone, the computer plays for it, green is back.
    while !matches!(
        table.log().due(),
        Due::Roll {
            by: Actor::Player(Colour::Green),
            ..
        }
    ) {
        assert!(table.step());
    }
    let roll = table.log().state().rolls() + 1;
    let value = table
        .chain(Colour::Green)
        .expect("green")
        .reveal(roll)
        .expect("a link");
    messages.push(Message::Reveal(Reveal {
        roll,
        seat: Colour::Green,
        value,
    }));
    let gone = Change::Gone(Colours::one(Colour::Green));
    messages.push(Message::Vote(table.vote(gone, Colour::Red).expect("red")));
    let cert = table.certificate(gone).expect("the votes");
    messages.push(Message::Entry(cert.clone()));
    table.log_mut().offer(cert).expect("the certificate");
    messages.push(Message::Entry(
        table.next_entry().expect("the computer's roll"),
    ));
    let back = Change::Back(Colour::Green);
    messages.push(Message::Vote(
        table.vote(back, Colour::Green).expect("green"),
    ));
    let cert = table.certificate(back).expect("the votes");
    messages.push(Message::Entry(cert.clone()));
    table.log_mut().offer(cert).expect("the return");
    // A player who signs two moves for one place, and the proof of it.
    while !matches!(
        table.log().due(),
        Due::Move {
            by: Actor::Player(_),
            ..
        }
    ) || table
        .log()
        .state()
        .game()
        .expect("a game")
        .legal_moves()
        .len()
        < 2
    {
        assert!(table.step());
    }
    let Due::Move { seat, .. } = table.log().due() else {
        unreachable!("a move is due")
    };
    let moves = table.log().state().game().expect("a game").legal_moves();
    let [a, b] = [moves[0], moves[1]].map(|mv| {
        table
            .sign(seat, Act::Move { mv, auto: false })
            .expect("a player")
    });
    messages.push(Message::Entry(Entry::expose(&a, &b).expect("a proof")));
    // Red leaves in its turn.
    while !matches!(
        table.log().due(),
        Due::Roll {
            by: Actor::Player(Colour::Red),
            ..
        }
    ) {
        assert!(table.step());
    }
    let leave = table.sign(Colour::Red, Act::Leave).expect("red");
    messages.push(Message::Entry(leave.clone()));
    table.log_mut().offer(leave).expect("the leave");
    // With red out, blue alone certifies green gone: signed after blue
    // acted past its place, the certificate is exposed.
    let late = table
        .certificate(Change::Gone(Colours::one(Colour::Green)))
        .expect("blue's vote");
    let at = late.index as usize;
    while table.log().entries()[at..]
        .iter()
        .all(|e| e.author() != Some(Colour::Blue))
    {
        assert!(table.step());
    }
    let since = &table.log().entries()[at..];
    messages.push(Message::Entry(
        Entry::expose_late(&late, since).expect("a proof"),
    ));
    let log = table.log();
    messages.push(Message::Entries {
        entries: log.entries()[10..20].to_vec(),
    });
    messages.push(Message::Status {
        len: log.len(),
        head: log.head(),
        missing: Colours::one(Colour::Blue),
    });
    messages.push(Message::Sync { from: 12 });
    while table.step() {}
    let result = table.log().result().expect("the end");
    messages.push(Message::Result {
        seat: Colour::Blue,
        head: table.log().head(),
        signature: result.sign(table.signer(Colour::Blue).expect("blue")),
    });
    for message in &messages {
        assert_eq!(Message::decode(&message.encode()).as_ref(), Ok(message));
    }
    messages
}

/// A lobby frame of every kind (the game's frame carrying `game_message`),
/// a batch of frames as the byte channel carries them, and an open and a
/// private room's links and code as text.
fn lobby_inputs(game_message: &[u8]) -> Vec<Vec<u8>> {
    let host = Keypair::ed25519_from_bytes([3; 32])
        .expect("a key")
        .public()
        .to_peer_id();
    let addr: Multiaddr = "/ip4/127.0.0.1/tcp/4001".parse().expect("an address");
    let room = RoomId::from_bytes([1; 16]);
    let open = Ticket::new(room, host, [addr.clone()], None).expect("a ticket");
    let secret = Some(RoomSecret::from_bytes([2; 16]));
    let private = Ticket::new(room, host, [addr], secret).expect("a ticket");
    let listing = Listing {
        players: 4,
        rules: RuleSet::Classic(HouseRules::CROATIAN),
        timer: TurnTimer::Seconds30,
        theme: Theme::Sea,
        first: FirstPlayer::FirstSix,
    };
    let lobby = [
        Lobby::Lookup,
        Lobby::Open {
            ticket: open.to_string(),
        },
        Lobby::Join { room, secret },
        Lobby::Admitted { room },
        Lobby::Refused {
            room,
            why: Refusal::Full,
        },
        Lobby::Browse,
        Lobby::Listed {
            ticket: open.to_string(),
            listing,
            free: 2,
        },
        Lobby::Ready { room, ready: true },
        Lobby::Leave { room },
        Lobby::Seats {
            room,
            seats: vec![
                SeatView::Host {
                    name: "Hana".into(),
                },
                SeatView::Guest {
                    name: "Ivo".into(),
                    ready: false,
                },
                SeatView::Computer { level: Level::Hard },
                SeatView::Empty,
            ],
        },
        Lobby::Invite {
            ticket: private.to_string(),
            listing,
            from: "Hana".into(),
        },
        Lobby::Declined { room },
        Lobby::Terms { room, listing },
        Lobby::YourSeat { room, seat: 1 },
    ];
    let mut frames: Vec<Vec<u8>> = lobby
        .into_iter()
        .map(|message| Frame::Lobby(message).encode())
        .collect();
    frames.push(Frame::Game(ByteBuf::from(game_message)).encode());
    let batch = Batch {
        session: 7,
        first: 3,
        messages: frames[..3].iter().cloned().map(ByteBuf::from).collect(),
    };
    frames.push(postcard::to_stdvec(&batch).expect("a batch"));
    frames.extend(
        [
            open.to_string(),
            private.to_string(),
            open.code().to_string(),
        ]
        .map(String::into_bytes),
    );
    frames
}
