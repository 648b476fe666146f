//! The game header: everything fixed before the first roll (rules, seats
//! with the players' keys and dice commitments, timers, theme, versions),
//! signed by every player. Its hash is the game id, which every signature
//! and every die of the game depends on.

use serde::{Deserialize, Serialize};

use super::colours::Colours;
use super::computer::LevelDef;
use super::digest::{Digest, Domain};
use super::event::Signable;
use super::identity::{PublicKey, Signature, Signer, Verifier};
use crate::bot::Level;
use crate::rules::{Colour, FirstPlayer, Game, RuleSet, Seats};

/// The version of the log's messages and rules of validation, and of the
/// room's setup before them (since 7 a guest signs only the game its
/// host's terms name; since 8 the terms say who begins). Phones only play
/// games of their own version.
pub const PROTOCOL_VERSION: u16 = 8;

/// The version of everything that every phone must compute identically: the
/// rules engine and the computer players. Bump it whenever either changes
/// what it computes.
pub const ENGINE: &str = concat!("clovece ", env!("CARGO_PKG_VERSION"));

/// How long the game waits for a phone that is gone before the computer
/// plays for it (the HoyHop text: 45 seconds).
pub const DEFAULT_GRACE_SECS: u16 = 45;

/// The level the computer plays at for a player who is gone or left, in
/// every room (a guest signs no other).
pub const STAND_IN: Level = Level::Medium;

/// The most rolls a game may take: the length of every dice chain. Classic
/// games of four take about 500 rolls, 1,226 at most in 10,000 games of
/// random players (docs/performance.md, "Game length"); a game that runs
/// out of dice ends without a winner.
pub const DEFAULT_ROLLS: u32 = 4096;

/// The longest dice chain a header may ask for (2 MiB of chain a phone).
pub const MAX_ROLLS: u32 = 1 << 16;

/// The longest engine tag a header may carry.
const MAX_ENGINE_LEN: usize = 128;

/// Who plays a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Seat {
    /// A player's phone: their identity key and the head of their dice chain.
    Player { key: PublicKey, commitment: Digest },
    /// The computer, computed by every phone.
    Computer {
        #[serde(with = "LevelDef")]
        level: Level,
    },
}

/// The time a player has for a turn before the computer makes it for them
/// (the Croatian room options), or none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TurnTimer {
    #[default]
    None,
    Seconds10,
    Seconds20,
    Seconds30,
    Seconds60,
}

impl TurnTimer {
    /// Every timer, none first: the one list of the times a turn may take.
    pub const ALL: [TurnTimer; 5] = [
        TurnTimer::None,
        TurnTimer::Seconds10,
        TurnTimer::Seconds20,
        TurnTimer::Seconds30,
        TurnTimer::Seconds60,
    ];

    /// The timer of `seconds` a turn (0: none), if there is one.
    pub fn from_seconds(seconds: u16) -> Option<TurnTimer> {
        (Self::ALL.into_iter()).find(|timer| timer.seconds().unwrap_or(0) == seconds)
    }

    pub fn seconds(self) -> Option<u16> {
        match self {
            TurnTimer::None => None,
            TurnTimer::Seconds10 => Some(10),
            TurnTimer::Seconds20 => Some(20),
            TurnTimer::Seconds30 => Some(30),
            TurnTimer::Seconds60 => Some(60),
        }
    }
}

/// The board's look (the Croatian room options: classic or sea).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Theme {
    #[default]
    Classic,
    Sea,
}

/// How the first player is chosen, in the header's encoding (and a room's
/// listing's).
#[derive(Serialize, Deserialize)]
#[serde(remote = "FirstPlayer")]
pub(crate) enum FirstPlayerDef {
    Red,
    Random,
    HighestRoll,
    FirstSix,
}

/// Everything fixed before the first roll.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub protocol: u16,
    pub engine: String,
    /// Random bytes from the phone that opened the room, so that two games
    /// with the same players and options still have different ids.
    pub nonce: [u8; 32],
    pub rules: RuleSet,
    #[serde(with = "FirstPlayerDef")]
    pub first: FirstPlayer,
    /// By colour; `None` for colours not in play.
    pub seats: [Option<Seat>; 4],
    pub timer: TurnTimer,
    pub grace_secs: u16,
    pub theme: Theme,
    /// The length of every dice chain: the most rolls the game may take.
    pub rolls: u32,
    /// The level the computer plays at for a player who is gone or left.
    #[serde(with = "LevelDef")]
    pub stand_in: Level,
}

impl Header {
    /// Whether this phone can play the game: the same protocol, rules
    /// engine and computer players. Checked before signing too, so that a
    /// guest with another app says so at once rather than once started.
    pub(crate) fn same_version(&self) -> Result<(), HeaderError> {
        if self.protocol != PROTOCOL_VERSION {
            return Err(HeaderError::Protocol {
                ours: PROTOCOL_VERSION,
                theirs: self.protocol,
            });
        }
        if self.engine != ENGINE {
            // Cut to a length fit for a message, at a character's edge:
            // the text is the sender's, whatever its bytes.
            let theirs = self
                .engine
                .char_indices()
                .take_while(|&(i, c)| i + c.len_utf8() <= MAX_ENGINE_LEN)
                .map(|(_, c)| c)
                .collect();
            return Err(HeaderError::Engine {
                ours: ENGINE.to_owned(),
                theirs,
            });
        }
        Ok(())
    }

    /// A header of this phone's protocol and engine, with the defaults of a
    /// HoyHop room (random first player, no turn timer, 45 s grace).
    pub fn new(nonce: [u8; 32], rules: RuleSet, seats: [Option<Seat>; 4]) -> Header {
        Header {
            protocol: PROTOCOL_VERSION,
            engine: ENGINE.to_owned(),
            nonce,
            rules,
            first: FirstPlayer::Random,
            seats,
            timer: TurnTimer::None,
            grace_secs: DEFAULT_GRACE_SECS,
            theme: Theme::Classic,
            rolls: DEFAULT_ROLLS,
            stand_in: STAND_IN,
        }
    }

    /// The game id: the hash of the header.
    pub fn id(&self) -> Digest {
        let bytes = postcard::to_stdvec(self).expect("a header serialises to memory");
        Digest::of(Domain::Game, &bytes)
    }

    /// This player's signature agreeing to the header.
    pub fn sign(&self, signer: &Signer) -> Signature {
        signer.sign(&Signable::Header(self))
    }

    /// Whether `signature` is `key`'s signature of this header.
    pub fn signed_by(&self, key: PublicKey, signature: &Signature) -> bool {
        key.verifier()
            .is_ok_and(|v| v.verify(&Signable::Header(self), signature))
    }

    /// The colours that are players' phones.
    pub fn players(&self) -> Colours {
        Colour::ALL
            .into_iter()
            .filter(|c| matches!(self.seats[c.index()], Some(Seat::Player { .. })))
            .collect()
    }

    /// The player's seat holding `key`, if any.
    pub fn seat_of(&self, key: PublicKey) -> Option<Colour> {
        Colour::ALL.into_iter().find(
            |c| matches!(self.seats[c.index()], Some(Seat::Player { key: k, .. }) if k == key),
        )
    }
}

/// A header with every player's signature: the first thing in a game's log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedHeader {
    pub header: Header,
    /// One per player's seat, in colour order.
    pub signatures: Vec<(Colour, Signature)>,
}

/// Why a phone refuses a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    #[error(
        "the game uses protocol version {theirs}, this app speaks version {ours}: {}",
        if .theirs > .ours { "update the app" } else { "it was made by an older app" }
    )]
    Protocol { ours: u16, theirs: u16 },
    #[error(
        "the game runs engine {theirs:?}, this app runs {ours:?}: every phone must run the same rules and computer players"
    )]
    Engine { ours: String, theirs: String },
    #[error("the seated colours are not a seating of the rules: {0}")]
    Seats(#[from] crate::rules::board::InvalidSeats),
    #[error("a game needs at least one player's phone")]
    NoPlayers,
    #[error("the key of {0} is not a valid ed25519 key")]
    BadKey(Colour),
    #[error("{0} and {1} have the same key")]
    SharedKey(Colour, Colour),
    #[error("the dice chains must allow 1 to {max} rolls, not {rolls}")]
    Rolls { rolls: u32, max: u32 },
    #[error("the grace period must be at least one second")]
    Grace,
    #[error("the rules cannot start a game with these seats")]
    Rules,
    #[error("{0} has not signed the header")]
    MissingSignature(Colour),
    #[error("the signature of {0} does not match the header")]
    BadSignature(Colour),
    #[error("a signature for {0}, which is not a player's seat or is signed twice")]
    ExtraSignature(Colour),
}

/// What the log needs to check entries: the header, its id, the seating and
/// the players' parsed keys.
#[derive(Clone, Debug)]
pub(crate) struct Setup {
    pub signed: SignedHeader,
    pub game: Digest,
    pub seats: Seats,
    pub players: Colours,
    pub verifiers: [Option<Verifier>; 4],
}

impl SignedHeader {
    /// Every player's signature on `header`, made with their signers (for
    /// tests and simulations; in a room each phone signs its own).
    pub fn sign_all(header: Header, signers: &[&Signer]) -> SignedHeader {
        let signatures = Colour::ALL
            .into_iter()
            .filter_map(|c| match header.seats[c.index()] {
                Some(Seat::Player { key, .. }) => signers
                    .iter()
                    .find(|s| s.public() == key)
                    .map(|s| (c, header.sign(s))),
                _ => None,
            })
            .collect();
        SignedHeader { header, signatures }
    }

    /// Checks everything a phone must agree to before playing the game.
    pub(crate) fn verify(self) -> Result<Setup, HeaderError> {
        self.header.same_version()?;
        let h = &self.header;
        let seated: Vec<Colour> = Colour::ALL
            .into_iter()
            .filter(|c| h.seats[c.index()].is_some())
            .collect();
        let seats = Seats::from_colours(&seated)?;
        let players = h.players();
        if players.is_empty() {
            return Err(HeaderError::NoPlayers);
        }
        if h.rolls == 0 || h.rolls > MAX_ROLLS {
            return Err(HeaderError::Rolls {
                rolls: h.rolls,
                max: MAX_ROLLS,
            });
        }
        if h.grace_secs == 0 {
            return Err(HeaderError::Grace);
        }
        if seats.iter().any(|c| Game::new(h.rules, seats, c).is_none()) {
            return Err(HeaderError::Rules);
        }
        let mut verifiers: [Option<Verifier>; 4] = Default::default();
        let mut keys: Vec<(Colour, PublicKey)> = Vec::new();
        for colour in players.iter() {
            let Some(Seat::Player { key, .. }) = h.seats[colour.index()] else {
                continue;
            };
            if let Some(&(other, _)) = keys.iter().find(|(_, k)| *k == key) {
                return Err(HeaderError::SharedKey(other, colour));
            }
            keys.push((colour, key));
            verifiers[colour.index()] =
                Some(key.verifier().map_err(|_| HeaderError::BadKey(colour))?);
        }
        let mut signed = Colours::NONE;
        for &(colour, ref signature) in &self.signatures {
            let verifier = match &verifiers[colour.index()] {
                Some(v) if !signed.contains(colour) => v,
                _ => return Err(HeaderError::ExtraSignature(colour)),
            };
            if !verifier.verify(&Signable::Header(h), signature) {
                return Err(HeaderError::BadSignature(colour));
            }
            signed = signed.with(colour);
        }
        if let Some(missing) = players.difference(signed).iter().next() {
            return Err(HeaderError::MissingSignature(missing));
        }
        let game = h.id();
        Ok(Setup {
            signed: self,
            game,
            seats,
            players,
            verifiers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::dice::{DiceChain, DiceSecret};
    use crate::rules::HouseRules;
    use libp2p_identity::Keypair;

    #[test]
    fn a_turn_timer_is_found_by_its_seconds() {
        for timer in TurnTimer::ALL {
            assert_eq!(
                TurnTimer::from_seconds(timer.seconds().unwrap_or(0)),
                Some(timer)
            );
        }
        assert_eq!(TurnTimer::from_seconds(0), Some(TurnTimer::None));
        assert_eq!(TurnTimer::from_seconds(45), None);
    }

    fn signer(seed: u8) -> Signer {
        Signer::new(&Keypair::ed25519_from_bytes([seed; 32]).unwrap()).unwrap()
    }

    fn player(signer: &Signer) -> Seat {
        let secret = DiceSecret::from_bytes([9; 32]);
        Seat::Player {
            key: signer.public(),
            commitment: DiceChain::new(&secret, 8).commitment(),
        }
    }

    /// Red and green players with `red` and `green` as keys.
    fn header(red: &Signer, green: &Signer) -> Header {
        let seats = [Some(player(red)), None, Some(player(green)), None];
        Header::new([1; 32], RuleSet::Classic(HouseRules::default()), seats)
    }

    fn refusal(signed: SignedHeader) -> HeaderError {
        signed.verify().unwrap_err()
    }

    #[test]
    fn a_header_signed_by_every_player_is_accepted() {
        let (red, green) = (signer(1), signer(2));
        let signed = SignedHeader::sign_all(header(&red, &green), &[&red, &green]);
        let setup = signed.clone().verify().unwrap();
        assert_eq!(setup.game, signed.header.id());
        assert_eq!(signed.header.seat_of(green.public()), Some(Colour::Green));
    }

    #[test]
    fn peers_refuse_another_version_with_a_clear_reason() {
        let (red, green) = (signer(1), signer(2));
        let mut newer = header(&red, &green);
        newer.protocol = PROTOCOL_VERSION + 1;
        let error = refusal(SignedHeader::sign_all(newer, &[&red, &green]));
        assert_eq!(
            error,
            HeaderError::Protocol {
                ours: PROTOCOL_VERSION,
                theirs: PROTOCOL_VERSION + 1
            }
        );
        assert!(error.to_string().contains("update the app"));
        let mut older = header(&red, &green);
        older.protocol = PROTOCOL_VERSION - 1;
        let error = refusal(SignedHeader::sign_all(older, &[&red, &green]));
        assert!(
            error.to_string().ends_with("made by an older app"),
            "{error}"
        );
        let mut other = header(&red, &green);
        other.engine = "clovece 9.9 other computer".into();
        let error = refusal(SignedHeader::sign_all(other, &[&red, &green]));
        assert!(matches!(error, HeaderError::Engine { .. }));
        assert!(
            error
                .to_string()
                .contains("same rules and computer players")
        );
    }

    #[test]
    fn a_long_foreign_engine_name_is_cut_at_a_characters_edge() {
        let (red, green) = (signer(1), signer(2));
        let mut other = header(&red, &green);
        // The 128th byte falls inside the "é".
        other.engine = format!("{}é and more", "x".repeat(MAX_ENGINE_LEN - 1));
        let HeaderError::Engine { theirs, .. } = refusal(SignedHeader::sign_all(other, &[])) else {
            panic!("refused for its engine");
        };
        assert_eq!(theirs, "x".repeat(MAX_ENGINE_LEN - 1));
    }

    #[test]
    fn every_player_must_sign_the_header_once() {
        let (red, green) = (signer(1), signer(2));
        let h = header(&red, &green);
        let only_red = SignedHeader::sign_all(h.clone(), &[&red]);
        assert_eq!(
            refusal(only_red),
            HeaderError::MissingSignature(Colour::Green)
        );
        let mut forged = SignedHeader::sign_all(h.clone(), &[&red, &green]);
        forged.signatures[1].1 = h.sign(&red);
        assert_eq!(refusal(forged), HeaderError::BadSignature(Colour::Green));
        let mut twice = SignedHeader::sign_all(h.clone(), &[&red, &green]);
        twice.signatures.push((Colour::Red, h.sign(&red)));
        assert_eq!(refusal(twice), HeaderError::ExtraSignature(Colour::Red));
        let mut signed = SignedHeader::sign_all(h, &[&red, &green]);
        signed.header.grace_secs = 30;
        assert!(matches!(refusal(signed), HeaderError::BadSignature(_)));
    }

    #[test]
    fn impossible_setups_are_refused() {
        let (red, green) = (signer(1), signer(2));
        let mut shared = header(&red, &green);
        shared.seats[2] = Some(player(&red));
        assert_eq!(
            refusal(SignedHeader::sign_all(shared, &[&red])),
            HeaderError::SharedKey(Colour::Red, Colour::Green)
        );
        let mut two_adjacent = header(&red, &green);
        two_adjacent.seats.swap(1, 2);
        assert!(matches!(
            refusal(SignedHeader::sign_all(two_adjacent, &[&red, &green])),
            HeaderError::Seats(_)
        ));
        let mut computers = header(&red, &green);
        computers.seats = [
            Some(Seat::Computer { level: Level::Easy }),
            None,
            Some(Seat::Computer { level: Level::Hard }),
            None,
        ];
        assert_eq!(
            refusal(SignedHeader::sign_all(computers, &[])),
            HeaderError::NoPlayers
        );
        let mut no_dice = header(&red, &green);
        no_dice.rolls = 0;
        assert!(matches!(
            refusal(SignedHeader::sign_all(no_dice, &[&red, &green])),
            HeaderError::Rolls { rolls: 0, .. }
        ));
        let mut no_grace = header(&red, &green);
        no_grace.grace_secs = 0;
        assert_eq!(
            refusal(SignedHeader::sign_all(no_grace, &[&red, &green])),
            HeaderError::Grace
        );
    }
}
