//! Log entries and what they carry. Entry `i` names its index and the hash
//! of entry `i - 1` (the game id for entry 0), so a log is a hash chain and
//! two phones with the same head hash have the same log (but for the
//! signatures in certificates and proofs: [`Entry::sized_hash`]).
//!
//! There are four kinds of entry, by who may write them:
//! - a player's own act in their turn, signed with their key: a roll, a
//!   move, leaving;
//! - a computer turn (a roll or move of a seat the computer plays), which is
//!   unsigned because its content is fixed: every phone computes the same
//!   entry, so it needs no message and cannot conflict;
//! - a certificate: every present player's signed vote that some players'
//!   phones are gone (and the computer plays them), or that an absent
//!   player is back (and takes the seat back at the next turn);
//! - a proof of cheating, which any phone that holds it may write: two
//!   different acts one player signed for one place, or a certificate its
//!   only voter signed for a place they had already played past.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::colours::Colours;
use super::dice::Reveals;
use super::digest::{Digest, Domain};
use super::header::Header;
use super::identity::{Signature, Signer};
use super::result::GameResult;
use crate::rules::{Colour, Move};

/// One entry of a game's log.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entry {
    pub index: u32,
    /// The hash of the entry before (the game id for entry 0).
    pub prev: Digest,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Kind {
    /// A player's own act.
    Player(Signed),
    /// A turn of a seat the computer plays.
    Computer(Auto),
    /// Players whose phones are gone, or one who is back, certified by
    /// everyone present.
    Absent(Certificate),
    /// A player cheated in this place: two different acts of their turn,
    /// or a certificate they signed after playing past it.
    Cheat(Box<Proof>),
}

/// A proof that a player cheated, written in the place the cheat concerns:
/// the player is out, whatever else claims the place. An honest phone never
/// gives either (docs/protocol.md, "What a cheater can and cannot do").
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(
    clippy::large_enum_variant,
    reason = "a proof is rare and always boxed in its entry"
)]
pub enum Proof {
    /// Two different acts that one seat signed for one place, `first` the
    /// one whose entry hashes lower, so that every phone that holds both
    /// writes the same proof. An honest phone signs at most one act per
    /// place, so this proves a player who went back to replay a turn
    /// knowing the dice that followed.
    TwoActs { first: Signed, second: Signed },
    /// A certificate one player's vote completed ([`Certificate::completed_by`]),
    /// signed for a place they had already played past: `path` runs from
    /// the entry in that place, which the certificate outranks, to the
    /// voter's first act after it, each entry naming the one before. An
    /// honest phone saves such a certificate before its vote leaves, and
    /// only an entry that outranks it ever takes its place, so it never
    /// acts after a weaker entry there. This proves a player who set the
    /// game back with a certificate only they had to sign (the other player
    /// gone, or back, in a game of two present players) to replay a stretch
    /// knowing the dice.
    LateVote {
        certificate: Certificate,
        #[serde(deserialize_with = "plain_entries")]
        path: Vec<Entry>,
    },
}

impl Proof {
    /// The player this proof puts out, if it holds: the one who signed both
    /// acts, or the late certificate's voter, whose act ends the path.
    fn accused(&self) -> Option<Colour> {
        match self {
            Proof::TwoActs { first, .. } => Some(first.seat),
            Proof::LateVote { path, .. } => path.last()?.author(),
        }
    }
}

/// The most entries a [`Proof::LateVote`] path holds. Between a place and
/// the voter's next act stand the other seats' turns of one round, a few
/// entries each unless sixes keep coming; the proof must fit in a message
/// (`wire::MAX_ENTRY`).
pub const MAX_PATH: usize = 64;

/// Decodes a path's entries as entries that are not proofs themselves, so
/// that a proof never holds another and decoding stays shallow whatever the
/// bytes. Their encoding is the entries' own (the variants in the same
/// order), so their hashes are too.
fn plain_entries<'de, D: serde::Deserializer<'de>>(decoder: D) -> Result<Vec<Entry>, D::Error> {
    #[derive(Deserialize)]
    enum PlainKind {
        Player(Signed),
        Computer(Auto),
        Absent(Certificate),
    }
    #[derive(Deserialize)]
    struct PlainEntry {
        index: u32,
        prev: Digest,
        kind: PlainKind,
    }
    let plain = Vec::<PlainEntry>::deserialize(decoder)?;
    Ok(plain
        .into_iter()
        .map(|e| Entry {
            index: e.index,
            prev: e.prev,
            kind: match e.kind {
                PlainKind::Player(signed) => Kind::Player(signed),
                PlainKind::Computer(auto) => Kind::Computer(auto),
                PlainKind::Absent(cert) => Kind::Absent(cert),
            },
        })
        .collect())
}

/// A player's act, signed with the key of their seat.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Signed {
    pub seat: Colour,
    pub act: Act,
    pub signature: Signature,
}

/// What a player does in their turn.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Act {
    /// Rolls the die: the roller's own reveal and everyone else's, which
    /// arrived before the tap.
    Roll(Reveals),
    /// Moves; `auto` when the player's turn timer ran out and the phone
    /// played the computer's move for them (it must then be that move).
    Move { mv: Move, auto: bool },
    /// Leaves the game on purpose; the computer plays the seat to the end.
    /// Only in one's own turn, where only one's own acts and certificates
    /// can claim the place, so that it can neither be written for an old
    /// place to set the game back nor be displaced by another player's act
    /// (a certificate there can: the phone signs it again, and so stays
    /// until the others hold it).
    Leave,
}

/// A turn of a seat the computer plays.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Auto {
    /// The roll, from the reveals of every present player.
    Roll(Reveals),
    /// The computer's move.
    Move(Move),
}

/// A change of who plays which seat, voted at this entry's index and
/// previous hash: every present player not in `gone` voted that the phones
/// in `gone` are gone; or every present player and the player in `back`
/// voted that they are back. Honest phones vote only for the entry after
/// their head, so a certificate can never be made for an old place.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Certificate {
    pub change: Change,
    /// One vote per voter, in colour order.
    pub votes: Vec<(Colour, Signature)>,
}

/// What a certificate changes: either some players are gone, or one absent
/// player is back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Change {
    Gone(Colours),
    Back(Colour),
}

impl Certificate {
    /// The present player whose vote alone completed this certificate,
    /// when one did: the only voter that players are gone, or the only
    /// voter besides the player who is back (that player, when nobody is
    /// present). An honest phone completes such a certificate as it votes
    /// (a return only with the returning player's vote in hand), and saves
    /// it before the vote leaves, which is what [`Entry::expose_late`]
    /// relies on.
    pub fn completed_by(&self) -> Option<Colour> {
        let voters = self.votes.iter().map(|&(voter, _)| voter);
        let mut others = voters.clone().filter(|&v| self.change != Change::Back(v));
        match (others.next(), others.next()) {
            (Some(voter), None) => Some(voter),
            (None, None) if self.votes.len() == 1 => voters.clone().next(),
            _ => None,
        }
    }
}

impl Change {
    /// Who must vote for this change while `present` play their seats:
    /// everyone else present for players gone; everyone present and the
    /// player for one back.
    pub fn voters(self, present: Colours) -> Colours {
        match self {
            Change::Gone(gone) => present.difference(gone),
            Change::Back(seat) => present.with(seat),
        }
    }
}

/// A player's vote for `change`, for the entry at `index` after `prev`.
/// Votes are messages; once everyone [`Certificate`] needs has voted, any
/// phone can assemble it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Vote {
    pub index: u32,
    pub prev: Digest,
    pub change: Change,
    pub voter: Colour,
    pub signature: Signature,
}

impl Vote {
    /// `voter`'s vote for `change` at entry `index` after `prev` in the
    /// game `game`.
    pub fn sign(
        signer: &Signer,
        game: Digest,
        index: u32,
        prev: Digest,
        change: Change,
        voter: Colour,
    ) -> Vote {
        let signature = signer.sign(&Signable::Vote {
            game,
            index,
            prev,
            change,
        });
        Vote {
            index,
            prev,
            change,
            voter,
            signature,
        }
    }
}

/// Everything a player signs, each in its own variant so that a signature
/// for one thing is never valid for another. The game id in each variant
/// keeps a signature from being replayed in another game.
#[derive(Serialize)]
pub(crate) enum Signable<'a> {
    Header(&'a Header),
    Act {
        game: Digest,
        index: u32,
        prev: Digest,
        seat: Colour,
        act: &'a Act,
    },
    Vote {
        game: Digest,
        index: u32,
        prev: Digest,
        change: Change,
    },
    Result(&'a GameResult),
}

impl Entry {
    /// `seat`'s `act` as entry `index` after `prev` in the game `game`,
    /// signed with the seat's key.
    pub fn sign(
        signer: &Signer,
        game: Digest,
        index: u32,
        prev: Digest,
        seat: Colour,
        act: Act,
    ) -> Entry {
        let signature = signer.sign(&Signable::Act {
            game,
            index,
            prev,
            seat,
            act: &act,
        });
        Entry {
            index,
            prev,
            kind: Kind::Player(Signed {
                seat,
                act,
                signature,
            }),
        }
    }

    pub fn hash(&self) -> Digest {
        self.sized_hash().1
    }

    /// The entry's size encoded, and its hash, from one encoding.
    ///
    /// A proof of cheating and a certificate are hashed by what they do in
    /// their place, not by their bytes. An ed25519 signer may choose its
    /// nonce, so it can sign the same thing in many ways; were these
    /// entries hashed by their bytes, one player could sign their own part
    /// again (the cheater their acts, any voter their vote, beside the
    /// others' votes, which are public in the log) until the copy had a
    /// lower hash than the entry in the log, and so take the place again:
    /// every phone set back there, the dice of the replay already known,
    /// and a late certificate made that way would even prove the honest
    /// player who completed the first one a cheater. Every valid proof
    /// against one player in one place puts the same player out, and every
    /// valid certificate of one change in one place has the same voters
    /// (everyone [`Change::voters`] names), so each is one entry. The
    /// voters are in a certificate's hash all the same: a certificate
    /// ranks by their number, and inside a proof's path, where it is not
    /// checked again, the chain of hashes must fix how many votes (and so
    /// how many bytes) it holds. A player's act signed again is a second
    /// act: it proves its signer a cheater ([`Entry::expose`]), and a
    /// computer turn has no signature.
    pub(crate) fn sized_hash(&self) -> (usize, Digest) {
        let bytes = postcard::to_stdvec(self).expect("an entry serialises to memory");
        let hash = match &self.kind {
            Kind::Cheat(proof) => self.hash_in_place(Domain::Proof, proof.accused()),
            Kind::Absent(certificate) => {
                let voters: Vec<Colour> = certificate.votes.iter().map(|&(c, _)| c).collect();
                self.hash_in_place(Domain::Certificate, (certificate.change, voters))
            }
            _ => Digest::of(Domain::Entry, &bytes),
        };
        (bytes.len(), hash)
    }

    /// The hash of `what` this entry does in its place.
    fn hash_in_place(&self, domain: Domain, what: impl Serialize) -> Digest {
        let place = (self.index, self.prev, what);
        let place = postcard::to_stdvec(&place).expect("a place serialises to memory");
        Digest::of(domain, &place)
    }

    /// The proof that the player who signed `a` and `b`, two different acts
    /// for one place, cheated; `None` if they are not that.
    pub fn expose(a: &Entry, b: &Entry) -> Option<Entry> {
        let (Kind::Player(x), Kind::Player(y)) = (&a.kind, &b.kind) else {
            return None;
        };
        if a.index != b.index || a.prev != b.prev || x.seat != y.seat || x == y {
            return None;
        }
        let (first, second) = if a.hash() < b.hash() { (x, y) } else { (y, x) };
        Some(a.proving(Proof::TwoActs {
            first: first.clone(),
            second: second.clone(),
        }))
    }

    /// The proof that the player who completed `late`, a certificate for
    /// the place where `since` starts (entries of one log, in order),
    /// cheated: the certificate outranks the entry there, yet the player
    /// acted after it (within [`MAX_PATH`] entries). `None` if that is not
    /// so.
    pub fn expose_late(late: &Entry, since: &[Entry]) -> Option<Entry> {
        let Kind::Absent(certificate) = &late.kind else {
            return None;
        };
        let voter = certificate.completed_by()?;
        let there = since.first()?;
        let (hash, there_hash) = (late.hash(), there.hash());
        // A copy of the certificate there (however its votes are signed:
        // its hash is its place, change and voters) is no late one; nor is it
        // worth the search for a path, which a hostile phone could
        // otherwise ask for with copy after copy, each refused unblamed
        // as a duplicate.
        if (there.index, there.prev) != (late.index, late.prev)
            || hash == there_hash
            || !late.wins_over(&hash, there, &there_hash)
        {
            return None;
        }
        let mut path = Vec::new();
        for entry in since.iter().take(MAX_PATH) {
            if let Some(act) = entry.act_of(voter) {
                path.extend(act);
                break;
            }
            path.push(entry.clone());
        }
        let chained = path
            .windows(2)
            .all(|w| w[0].index.checked_add(1) == Some(w[1].index) && w[1].prev == w[0].hash());
        // A proof in the path could not be sent (a path holds no proofs).
        if path.last()?.author() != Some(voter)
            || path.len() > MAX_PATH
            || !chained
            || path.iter().any(|e| matches!(e.kind, Kind::Cheat(_)))
        {
            return None;
        }
        Some(late.proving(Proof::LateVote {
            certificate: certificate.clone(),
            path,
        }))
    }

    /// The entries from this entry's place to the first act `seat` signed
    /// in it, where this entry is one or a proof that holds one: the first
    /// of their own two acts (in this place), or a late vote's path (which
    /// starts in this place; the act ends it if the proof is against
    /// `seat`). So a cheater already exposed after a place cannot take it
    /// with a late certificate, which would drop the proof, without being
    /// exposed again; nor hide their acts in a late vote against another.
    fn act_of(&self, seat: Colour) -> Option<Vec<Entry>> {
        match &self.kind {
            Kind::Player(signed) if signed.seat == seat => Some(vec![self.clone()]),
            Kind::Cheat(proof) => match proof.as_ref() {
                Proof::TwoActs { first, .. } if first.seat == seat => Some(vec![Entry {
                    index: self.index,
                    prev: self.prev,
                    kind: Kind::Player(first.clone()),
                }]),
                Proof::LateVote { path, .. } => {
                    let act = path.iter().position(|e| e.author() == Some(seat))?;
                    Some(path[..=act].to_vec())
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// `proof` written in this entry's place.
    fn proving(&self, proof: Proof) -> Entry {
        Entry {
            index: self.index,
            prev: self.prev,
            kind: Kind::Cheat(Box::new(proof)),
        }
    }

    /// The seat that signed this entry, for a player's act.
    pub fn author(&self) -> Option<Colour> {
        match &self.kind {
            Kind::Player(signed) => Some(signed.seat),
            _ => None,
        }
    }

    /// How strongly this entry claims its place when two valid entries
    /// follow the same previous entry (see [`Entry::wins_over`]).
    fn class(&self) -> (u8, usize) {
        match &self.kind {
            Kind::Cheat(_) => (5, 0),
            Kind::Absent(cert) => (4, cert.votes.len()),
            Kind::Player(_) => (3, 0),
            Kind::Computer(_) => (2, 0),
        }
    }

    /// Whether this entry, rather than `other`, takes the place both claim
    /// (the same index after the same entry; both valid there). Every phone
    /// decides the same way whatever order the two arrive in:
    ///
    /// 0. A proof of cheating wins over everything: whatever else claims the
    ///    place, the player who cheated there is out.
    /// 1. Then a certificate: every present player voted for it at this
    ///    place, so whatever else came too late (an absent phone's act, a
    ///    computer turn racing a return). Between two, the one with more
    ///    votes (the larger side of a partition).
    /// 2. Then a player's act in their own turn.
    /// 3. Last, a computer turn.
    ///
    /// A player's act and a computer turn never claim one place (the seat
    /// in turn is one or the other), nor do two players' acts; so what can
    /// win a place after the game has gone on from it is only a proof or a
    /// certificate, and neither can be made late by honest players: a
    /// certificate needs every present player's vote for the place, given
    /// only at their head (and one made late by the one player who
    /// completed it is exposed by [`Entry::expose_late`]).
    /// Ties (two certificates with as many votes, or a player who signed two
    /// different acts) go to the lower hash.
    pub fn wins_over(&self, hash: &Digest, other: &Entry, other_hash: &Digest) -> bool {
        match self.class().cmp(&other.class()) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => hash < other_hash,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::sim::{Config, Table};
    use crate::protocol::state::{Actor, Due};
    use crate::protocol::{LogError, Offered};
    use crate::rules::Seats;

    const RED: Colour = Colour::Red;
    const BLUE: Colour = Colour::Blue;
    const GREEN: Colour = Colour::Green;

    /// A game of three phones, played until `seat`'s roll is due past the
    /// opening, where `seat` is then certified gone.
    fn gone_at_roll(table: &mut Table, seat: Colour) -> Entry {
        while !(table.log().len() > 10
            && matches!(table.log().due(), Due::Roll { by: Actor::Player(s), .. } if s == seat))
        {
            assert!(table.step(), "the game ended first");
        }
        let certificate = table.certificate(Change::Gone(Colours::one(seat))).unwrap();
        assert_eq!(
            table.log_mut().offer(certificate.clone()),
            Ok(Offered::Appended)
        );
        certificate
    }

    /// `certificate` with `voter`'s vote signed anew, with a nonce of
    /// `voter`'s own choosing, beside the others' votes as they are.
    fn signed_anew(table: &Table, certificate: &Entry, voter: Colour, salt: u8) -> Entry {
        let Kind::Absent(Certificate { change, votes }) = &certificate.kind else {
            panic!("not a certificate")
        };
        let what = Signable::Vote {
            game: table.log().game(),
            index: certificate.index,
            prev: certificate.prev,
            change: *change,
        };
        let signature = table.signer(voter).unwrap().sign_anew(&what, salt);
        let votes = votes
            .iter()
            .map(|&(v, s)| (v, if v == voter { signature } else { s }))
            .collect();
        let copy = with_votes(certificate, votes);
        assert_ne!(&copy, certificate);
        copy
    }

    /// `certificate` with `votes` instead of its own.
    fn with_votes(certificate: &Entry, votes: Vec<(Colour, Signature)>) -> Entry {
        let Kind::Absent(Certificate { change, .. }) = &certificate.kind else {
            panic!("not a certificate")
        };
        Entry {
            kind: Kind::Absent(Certificate {
                change: *change,
                votes,
            }),
            ..certificate.clone()
        }
    }

    /// The player whose vote alone completed `certificate`.
    fn completed_by(certificate: &Entry) -> Option<Colour> {
        match &certificate.kind {
            Kind::Absent(certificate) => certificate.completed_by(),
            _ => None,
        }
    }

    /// Red and blue certified green gone, and the game went on. Red alone,
    /// signing its vote anew beside blue's, must not take the place again:
    /// with a lower hash the copy would set every phone back there, with
    /// the dice of the replay known.
    #[test]
    fn a_voter_signing_their_vote_anew_takes_no_place() {
        let mut table = Table::new(&Config::new(11, Seats::for_players(3).unwrap())).unwrap();
        let certificate = gone_at_roll(&mut table, GREEN);
        for _ in 0..6 {
            assert!(table.step(), "the game ended first");
        }
        let (len, head) = (table.log().len(), table.log().head());
        for salt in 1..=16 {
            let copy = signed_anew(&table, &certificate, RED, salt);
            assert_eq!(copy.hash(), certificate.hash());
            assert_eq!(
                table.log_mut().offer(copy),
                Err(LogError::Duplicate {
                    index: certificate.index
                })
            );
            assert_eq!((table.log().len(), table.log().head()), (len, head));
        }
    }

    /// Red is the only player present when blue comes back; red votes
    /// blue back and plays on. Blue, signing its own vote anew beside
    /// red's, must not make a late certificate only red "completed" and so
    /// prove honest red a cheater.
    #[test]
    fn a_returning_player_signing_their_vote_anew_or_padding_it_takes_no_place() {
        let mut table = Table::new(&Config::new(11, Seats::for_players(3).unwrap())).unwrap();
        gone_at_roll(&mut table, GREEN);
        gone_at_roll(&mut table, BLUE);
        let back = table.certificate(Change::Back(BLUE)).unwrap();
        assert_eq!(table.log_mut().offer(back.clone()), Ok(Offered::Appended));
        let at = back.index as usize;
        while !table.log().entries()[at..]
            .iter()
            .any(|e| e.author() == Some(RED))
        {
            assert!(table.step(), "the game ended first");
        }
        for salt in 1..=16 {
            let copy = signed_anew(&table, &back, BLUE, salt);
            assert_eq!(completed_by(&copy), Some(RED));
            assert_eq!(
                Entry::expose_late(&copy, &table.log().entries()[at..]),
                None
            );
            assert_eq!(
                table.log_mut().offer(copy),
                Err(LogError::Duplicate { index: back.index })
            );
        }
        // A copy padded with votes of the returning player (which would
        // outnumber the real ones and leave red as the one who completed
        // it) is another entry, its voters being in its hash: refused as
        // one with the wrong voters, which blames whoever sent it. So a
        // proof's path cannot carry a certificate padded (to make the next
        // proof too large to write) or stripped (to make another outrank
        // it) either: the chain would break there.
        let Kind::Absent(Certificate { votes, .. }) = &back.kind else {
            unreachable!()
        };
        let blue = votes.iter().find(|&&(v, _)| v == BLUE).unwrap();
        let red = votes.iter().find(|&&(v, _)| v == RED).unwrap();
        let padded = with_votes(&back, vec![*blue, *blue, *blue, *red]);
        let stripped = with_votes(&back, Vec::new());
        assert_eq!(completed_by(&padded), Some(RED));
        assert_ne!(padded.hash(), back.hash());
        assert_ne!(stripped.hash(), back.hash());
        assert!(matches!(
            table.log_mut().offer(padded),
            Err(LogError::WrongVoters { .. })
        ));
    }
}
