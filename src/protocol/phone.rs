//! One phone's part in a game: it keeps the log, sends this player's reveals
//! and acts, plays the computer's turns, votes on absences and returns,
//! catches up and saves every entry to disk. It never reads a clock: time
//! reaches it as [`Observation`]s from the transport layer (see
//! [`super::presence`]), and messages go through the [`Transport`] trait,
//! so the same code runs over libp2p and over the simulated network of the
//! tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use libp2p_identity::Keypair;

use super::colours::Colours;
use super::dice::{DiceChain, DiceSecret, Reveals};
use super::digest::Digest;
use super::event::{Act, Auto, Certificate, Change, Entry, Kind, Signable, Vote};
use super::header::{HeaderError, Seat, SignedHeader};
use super::identity::{NotEd25519, Signature, Signer};
use super::log::{Log, LogError, Offered};
use super::result::SignedResult;
use super::state::{Actor, Control, Due, check_signature};
use super::store::{Restored, Store, StoreError};
use super::wire::{DecodeError, Message, Reveal};
use crate::rules::{Colour, Move};

/// The most messages a phone may have left untaken and still be sent a
/// batch of entries it asks for ([`Phone::send_entries`]): far more than a
/// phone that takes its messages ever has on its way.
const MAX_BACKLOG: usize = 32;

/// How messages leave a phone. Peers are named by seat colour; the network
/// layer maps them to libp2p peer ids with the keys in the header.
pub trait Transport {
    /// Sends `message` to the phone of `to`.
    fn send(&mut self, to: Colour, message: &[u8]);
    /// Sends `message` to every other phone of the game.
    fn broadcast(&mut self, message: &[u8]);
    /// How many messages sent to the phone of `to` it has not taken yet;
    /// a transport that keeps no queue has none.
    fn backlog(&self, _to: Colour) -> usize {
        0
    }
}

/// What the transport layer saw as time passed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Observation {
    /// Players whose phones the game has waited on for longer than the
    /// grace period.
    pub gone: Colours,
    /// This player's turn timer ran out: the computer makes the rest of the
    /// turn for them.
    pub timer_expired: bool,
}

/// Whom the game waits on, as this phone sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Waiting {
    /// Players whose reveal for the roll due has not arrived.
    pub reveals: Colours,
    /// Another player whose roll or move is due.
    pub action: Option<Colour>,
    /// Whether this player's own roll or move is due (a roll not tapped
    /// yet: their time is up only while it is theirs to act).
    pub mine: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum PhoneError {
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error(transparent)]
    Log(#[from] LogError),
    /// An entry of this phone's own (its player's act, a computer turn, a
    /// certificate) was refused: nothing the sender of a message did.
    #[error("this phone's own entry was refused: {0}")]
    Own(LogError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("refusing the game: {0}")]
    Header(#[from] HeaderError),
    #[error(transparent)]
    Key(#[from] NotEd25519),
    #[error("this phone's key has no seat in the game")]
    NotSeated,
    #[error("the dice secret does not match this seat's commitment")]
    WrongSecret,
    #[error("it is not this player's turn to roll")]
    NotYourRoll,
    #[error("it is not this player's turn to move")]
    NotYourMove,
    #[error("{0} is not a player, so it has no reveals or result signature")]
    NotAPlayer(Colour),
    #[error("the reveal of {0} for roll {1} does not match its dice commitment")]
    RevealMismatch(Colour, u32),
    #[error("the result signature of {0} does not match the result")]
    BadResultSignature(Colour),
}

impl PhoneError {
    /// `error` as this phone's own failure.
    fn own(error: PhoneError) -> PhoneError {
        match error {
            PhoneError::Log(error) => PhoneError::Own(error),
            other => other,
        }
    }

    /// Whether no honest phone sends what was refused, so the transport may
    /// stop listening to the sender: a message that does not decode, or an
    /// entry, reveal or signature that is wrong where it claims to be (an
    /// entry is checked only when this phone has the one before it, so the
    /// sender's game up to there is the same). Not so for an entry that
    /// lost its place, came twice or on another branch, or is one of two a
    /// cheater signed (an honest phone may pass those on), nor for this
    /// phone's own failures.
    pub fn blames_sender(&self) -> bool {
        match self {
            PhoneError::Decode(_)
            | PhoneError::NotAPlayer(_)
            | PhoneError::RevealMismatch(..)
            | PhoneError::BadResultSignature(_) => true,
            PhoneError::Log(error) => !matches!(
                error,
                LogError::Gap { .. }
                    | LogError::UnknownBranch { .. }
                    | LogError::Duplicate { .. }
                    | LogError::Outranked { .. }
                    | LogError::Equivocation { .. }
                    | LogError::NoGame
                    | LogError::AfterTheEnd { .. }
            ),
            PhoneError::Own(_)
            | PhoneError::Store(_)
            | PhoneError::Header(_)
            | PhoneError::Key(_)
            | PhoneError::NotSeated
            | PhoneError::WrongSecret
            | PhoneError::NotYourRoll
            | PhoneError::NotYourMove => false,
        }
    }
}

/// One phone of a game.
#[derive(Debug)]
pub struct Phone {
    seat: Colour,
    signer: Signer,
    log: Log,
    chain: DiceChain,
    store: Option<Store>,
    /// Reveals that arrived for the roll due or the one after, by (roll,
    /// seat), each checked against its chain.
    reveals: BTreeMap<(u32, Colour), Digest>,
    /// Votes for the entry after the head, by voter.
    votes: BTreeMap<(Colour, Change), Vote>,
    /// Players the transport reports gone.
    gone: Colours,
    /// The player tapped the die.
    tapped: bool,
    /// The turn timer ran out: the computer plays the rest of this turn.
    autoplay: bool,
    /// How many of this player's turns the computer played as their timer
    /// ran out (the app says so).
    timeouts: u32,
    /// The player chose to leave: signed in their next turn (leaving is an
    /// act of one's own turn).
    leaving: bool,
    /// The last roll this phone sent its reveal for.
    revealed: u32,
    /// Whether this phone holds its reveal for each computer roll until
    /// [`Phone::release`]: the app's, so that people can follow the
    /// computer's turns, which would otherwise pass as fast as the
    /// network ([`Phone::pace_computer`]).
    paced: bool,
    /// The computer roll this phone was let reveal for.
    released: Option<u32>,
    /// Result signatures, by seat.
    signatures: BTreeMap<Colour, Signature>,
    /// How far back the last catch-up request to each seat's phone reached
    /// behind a fork: one per phone, so that entries of one (a hostile
    /// phone's off every branch) cannot send another's search back to the
    /// start or forward again.
    backtrack: [u32; 4],
}

impl Phone {
    /// Joins the game `header` as the player holding `keypair`, with the
    /// dice secret committed in the header, saving to `dir` if given.
    pub fn new(
        header: SignedHeader,
        keypair: &Keypair,
        secret: DiceSecret,
        dir: Option<&Path>,
    ) -> Result<Phone, PhoneError> {
        let signer = Signer::new(keypair)?;
        let seat = header
            .header
            .seat_of(signer.public())
            .ok_or(PhoneError::NotSeated)?;
        let log = Log::new(header)?;
        let mut phone = Phone::build(seat, signer, log, &secret, None)?;
        // Files only for a game this phone agreed to play.
        if let Some(dir) = dir {
            phone.store = Some(Store::create(dir, phone.log.header(), seat, &secret)?);
        }
        Ok(phone)
    }

    /// Continues a game loaded from disk.
    pub fn resume(restored: Restored, keypair: &Keypair) -> Result<Phone, PhoneError> {
        let signer = Signer::new(keypair)?;
        let Restored {
            log,
            seat,
            secret,
            store,
        } = restored;
        if log.header().header.seat_of(signer.public()) != Some(seat) {
            return Err(PhoneError::NotSeated);
        }
        Phone::build(seat, signer, log, &secret, Some(store))
    }

    fn build(
        seat: Colour,
        signer: Signer,
        log: Log,
        secret: &DiceSecret,
        store: Option<Store>,
    ) -> Result<Phone, PhoneError> {
        let header = &log.header().header;
        let chain = DiceChain::new(secret, header.rolls);
        match header.seats[seat.index()] {
            Some(Seat::Player { commitment, .. }) if commitment == chain.commitment() => {}
            _ => return Err(PhoneError::WrongSecret),
        }
        Ok(Phone {
            seat,
            signer,
            log,
            chain,
            store,
            reveals: BTreeMap::new(),
            votes: BTreeMap::new(),
            gone: Colours::NONE,
            tapped: false,
            autoplay: false,
            timeouts: 0,
            leaving: false,
            revealed: 0,
            paced: false,
            released: None,
            signatures: BTreeMap::new(),
            backtrack: [0; 4],
        })
    }

    pub fn seat(&self) -> Colour {
        self.seat
    }

    pub fn log(&self) -> &Log {
        &self.log
    }

    /// How many of this player's turns the computer played as their turn
    /// timer ran out, since this phone started.
    pub fn timeouts(&self) -> u32 {
        self.timeouts
    }

    /// Holds this phone's reveal for each computer roll until
    /// [`Phone::release`]. Every phone can, or not: the roll comes once the
    /// last reveal does, so the computer's turns pass at the pace of the
    /// slowest phone, and nothing of the game depends on it.
    pub fn pace_computer(&mut self) {
        self.paced = true;
    }

    /// The computer roll this phone holds its reveal for, if any (not one
    /// it revealed for already, as the player's roll it was before the
    /// player was found gone).
    pub fn held(&self) -> Option<u32> {
        match self.log.due() {
            Due::Roll {
                roll,
                by: Actor::Computer,
                ..
            } if self.paced && self.released != Some(roll) && self.revealed < roll => Some(roll),
            _ => None,
        }
    }

    /// Lets this phone reveal for the computer roll `roll`, which it held
    /// ([`Phone::held`]), and does whatever is due.
    pub fn release(&mut self, roll: u32, t: &mut dyn Transport) -> Result<(), PhoneError> {
        self.released = Some(roll);
        self.drive(t)
    }

    /// Announces where this phone's log stands (after joining or restarting)
    /// and does whatever is due.
    pub fn start(&mut self, t: &mut dyn Transport) -> Result<(), PhoneError> {
        self.status(t);
        self.drive(t)
    }

    /// The player taps the die: rolls as soon as every other reveal is in.
    pub fn roll(&mut self, t: &mut dyn Transport) -> Result<(), PhoneError> {
        match self.log.due() {
            Due::Roll {
                by: Actor::Player(p),
                ..
            } if p == self.seat => {
                self.tapped = true;
                self.drive(t)
            }
            _ => Err(PhoneError::NotYourRoll),
        }
    }

    /// The player moves.
    pub fn play(&mut self, mv: Move, t: &mut dyn Transport) -> Result<(), PhoneError> {
        match self.log.due() {
            Due::Move {
                by: Actor::Player(p),
                ..
            } if p == self.seat => {
                self.act(Act::Move { mv, auto: false }, t)?;
                self.drive(t)
            }
            _ => Err(PhoneError::NotYourMove),
        }
    }

    /// The player leaves the game on purpose, at once if it is their turn,
    /// else in their next turn (taking the seat back first if the computer
    /// plays it for their phone's absence).
    pub fn leave(&mut self, t: &mut dyn Transport) -> Result<(), PhoneError> {
        self.leaving = true;
        self.drive(t)
    }

    /// Whether the player chose to leave ([`Phone::leave`]), their leave
    /// in the log or not (yet, or again: a certificate the others
    /// completed at its place outranks it).
    pub fn leaving(&self) -> bool {
        self.leaving
    }

    /// Takes in what the transport saw as time passed.
    pub fn observe(&mut self, seen: Observation, t: &mut dyn Transport) -> Result<(), PhoneError> {
        self.gone = seen.gone;
        if seen.timer_expired && self.waiting().mine && !self.autoplay {
            self.autoplay = true;
            self.timeouts += 1;
        }
        self.drive(t)
    }

    /// Called now and then (every second or so): tells the others where
    /// this log stands and sends again what may have been lost.
    pub fn tick(&mut self, t: &mut dyn Transport) -> Result<(), PhoneError> {
        self.status(t);
        let mine: Vec<Vote> = self
            .votes
            .values()
            .filter(|v| v.voter == self.seat)
            .cloned()
            .collect();
        for vote in mine {
            self.broadcast(t, &Message::Vote(vote));
        }
        self.drive(t)
    }

    /// Takes a message from the phone of `from`. An error means the message
    /// was refused (malformed, forged or against the rules); nothing was
    /// taken from it.
    pub fn receive(
        &mut self,
        from: Colour,
        bytes: &[u8],
        t: &mut dyn Transport,
    ) -> Result<(), PhoneError> {
        match Message::decode(bytes)? {
            Message::Entry(entry) => self.accept(from, vec![entry], false, t),
            Message::Entries { entries } => {
                let full = Message::full(entries.len(), bytes.len());
                self.accept(from, entries, full, t)
            }
            Message::Reveal(reveal) => self.take_reveal(reveal, t),
            Message::Vote(vote) => self.take_vote(vote, t),
            Message::Status { len, head, missing } => {
                self.answer_status(from, len, head, missing, t);
                Ok(())
            }
            Message::Sync { from: index } => {
                self.send_entries(from, index, t);
                Ok(())
            }
            Message::Result {
                seat,
                head,
                signature,
            } => self.take_signature(seat, head, signature),
        }
    }

    /// Once the game is over, keeps its end ([`Log::keep_end`]): for a
    /// phone that has shown its result and lingers only to tell the others.
    /// Whether the end is kept.
    pub fn keep_end(&mut self) -> bool {
        self.log.keep_end()
    }

    /// Whom the game waits on, for the presence watch.
    pub fn waiting(&self) -> Waiting {
        let state = self.log.state();
        let others = state.present().without(self.seat);
        match self.log.due() {
            Due::Roll { roll, by, .. } => {
                let roller = match by {
                    Actor::Player(p) => Colours::one(p),
                    Actor::Computer => Colours::NONE,
                };
                let reveals = others
                    .difference(roller)
                    .iter()
                    .filter(|&c| !self.reveals.contains_key(&(roll, c)))
                    .collect();
                Waiting {
                    reveals,
                    action: roller.without(self.seat).iter().next(),
                    // Tapped, the roll waits on the others' reveals.
                    mine: by == Actor::Player(self.seat) && !self.tapped,
                }
            }
            Due::Move {
                by: Actor::Player(p),
                ..
            } => Waiting {
                reveals: Colours::NONE,
                action: (p != self.seat).then_some(p),
                mine: p == self.seat,
            },
            _ => Waiting::default(),
        }
    }

    /// The result with every signature collected so far, once the game is
    /// over.
    pub fn result(&self) -> Option<SignedResult> {
        let result = self.log.result()?;
        let signatures = self.signatures.iter().map(|(&c, &s)| (c, s)).collect();
        Some(SignedResult { result, signatures })
    }

    fn broadcast(&self, t: &mut dyn Transport, message: &Message) {
        t.broadcast(&message.encode());
    }

    fn status(&self, t: &mut dyn Transport) {
        let missing = match self.log.due() {
            Due::Over(_) => self
                .log
                .state()
                .present()
                .difference(self.signatures.keys().copied().collect()),
            _ => self.waiting().reveals,
        };
        let message = Message::Status {
            len: self.log.len(),
            head: self.log.head(),
            missing,
        };
        self.broadcast(t, &message);
    }

    fn my_reveal(&self, roll: u32, value: Digest) -> Reveal {
        Reveal {
            roll,
            seat: self.seat,
            value,
        }
    }

    /// Signs `act` as the next entry, takes it into the log and sends it.
    fn act(&mut self, act: Act, t: &mut dyn Transport) -> Result<(), PhoneError> {
        let log = &self.log;
        let entry = Entry::sign(
            &self.signer,
            log.game(),
            log.len(),
            log.head(),
            self.seat,
            act,
        );
        self.append(entry.clone())?;
        self.broadcast(t, &Message::Entry(entry));
        Ok(())
    }

    /// Writes `proof` and sends it: it outranks what it exposes, and the
    /// player is out of the game. Whether it was written: it is refused
    /// when it changes nothing (the cheater has left), or when what it
    /// holds is not valid in its place (a forged certificate).
    fn expose(&mut self, proof: Option<Entry>, t: &mut dyn Transport) -> Result<bool, PhoneError> {
        let Some(proof) = proof else {
            return Ok(false);
        };
        let Ok(offered) = self.log.offer(proof.clone()) else {
            return Ok(false);
        };
        self.save(&proof, offered)?;
        self.broadcast(t, &Message::Entry(proof));
        Ok(true)
    }

    /// Takes an entry this phone made into the log and saves it.
    fn append(&mut self, entry: Entry) -> Result<(), PhoneError> {
        let offered = self.log.offer(entry.clone())?;
        self.save(&entry, offered)
    }

    /// Saves `entry`, which the log has just taken as `offered`. If it
    /// cannot be saved, it is taken out of the log again, so that the log
    /// never runs ahead of the file: an act that is not on disk must not be
    /// sent (after a restart the phone would sign another one for the same
    /// place, which reads as cheating), and an entry from another phone
    /// comes again with the next status.
    ///
    /// An entry that took the place of others goes, and they come back, as
    /// the file still holds them (a replacement is saved whole or not at
    /// all): this phone may have signed and sent acts or votes after the
    /// place, and going on from a shorter log it could sign others there,
    /// which reads as cheating. The entry wins again when it comes again.
    fn save(&mut self, entry: &Entry, offered: Offered) -> Result<(), PhoneError> {
        let saved = self.store(entry, &offered);
        if saved.is_err() {
            self.log.truncate(entry.index);
            if let Offered::Replaced { lost, after } = offered {
                for entry in std::iter::once(*lost).chain(after) {
                    // Each stood here before, so each is taken again.
                    let _ = self.log.offer(entry);
                }
            }
        }
        saved
    }

    fn store(&mut self, entry: &Entry, offered: &Offered) -> Result<(), PhoneError> {
        // Votes and result signatures are for the log as it was, and so is
        // what the transport reported gone (its watch measures from the
        // last entry): a player is voted gone at the new head only once a
        // report says so there.
        self.votes.clear();
        self.signatures.clear();
        self.gone = Colours::NONE;
        if let Offered::Replaced { .. } = offered {
            // The rolls since the fork are due again, maybe with other
            // rollers: this phone's reveals for them must go out again
            // (each computer roll's after its pause, as the first time).
            self.revealed = self.revealed.min(self.log.state().rolls());
            self.released = None;
        }
        if let Some(store) = &mut self.store {
            match offered {
                Offered::Replaced { .. } => store.replace(entry)?,
                Offered::Appended => store.append(entry)?,
            }
        }
        // Only once saved: an entry taken back leaves its roll due again,
        // to be made from the reveals gathered for it.
        if let Due::Roll { roll, .. } = self.log.due() {
            self.reveals.retain(|&(r, _), _| r >= roll);
        }
        Ok(())
    }

    /// Does everything this phone can do now: sends its reveal, plays the
    /// computer's turns, rolls after a tap, leaves in its turn, votes.
    fn drive(&mut self, t: &mut dyn Transport) -> Result<(), PhoneError> {
        self.run(t).map_err(PhoneError::own)
    }

    fn run(&mut self, t: &mut dyn Transport) -> Result<(), PhoneError> {
        loop {
            let due = self.log.due();
            let my_turn = due.actor() == Some(Actor::Player(self.seat));
            if !my_turn {
                self.autoplay = false;
                self.tapped = false;
            }
            if my_turn && self.leaving {
                self.act(Act::Leave, t)?;
                continue;
            }
            match due {
                Due::Over(_) => {
                    self.sign_result(t);
                    break;
                }
                // Nobody present to reveal: the game waits for a return.
                Due::Roll {
                    by: Actor::Computer,
                    ..
                } if self.log.state().present().is_empty() => break,
                Due::Roll {
                    by: Actor::Computer,
                    ..
                } if self.held().is_some() => break,
                Due::Roll {
                    roll,
                    by: Actor::Computer,
                    ..
                } => {
                    self.send_reveal(roll, t);
                    let Some(reveals) = self.collect(roll) else {
                        break;
                    };
                    self.append_computer(Auto::Roll(reveals))?;
                }
                Due::Roll { roll, .. } if my_turn => {
                    if !(self.tapped || self.autoplay) {
                        break;
                    }
                    let Some(reveals) = self.collect(roll) else {
                        break;
                    };
                    self.tapped = false;
                    self.act(Act::Roll(reveals), t)?;
                }
                Due::Roll { roll, .. } => {
                    self.send_reveal(roll, t);
                    break;
                }
                Due::Move {
                    by: Actor::Computer,
                    ..
                } => {
                    let mv = self
                        .log
                        .computer_move()
                        .ok_or(LogError::NotTheComputersMove)?;
                    self.append_computer(Auto::Move(mv))?;
                }
                Due::Move { .. } if my_turn && self.autoplay => {
                    let mv = self
                        .log
                        .computer_move()
                        .ok_or(LogError::NotTheComputersMove)?;
                    self.act(Act::Move { mv, auto: true }, t)?;
                }
                Due::Move { .. } => break,
            }
        }
        self.vote(t)
    }

    fn append_computer(&mut self, auto: Auto) -> Result<(), PhoneError> {
        self.append(Entry {
            index: self.log.len(),
            prev: self.log.head(),
            kind: Kind::Computer(auto),
        })
    }

    /// Sends this player's reveal for `roll`, once, if they take part.
    fn send_reveal(&mut self, roll: u32, t: &mut dyn Transport) {
        if roll <= self.revealed || !self.log.state().present().contains(self.seat) {
            return;
        }
        if let Some(value) = self.chain.reveal(roll) {
            self.revealed = roll;
            self.broadcast(t, &Message::Reveal(self.my_reveal(roll, value)));
        }
    }

    /// Every present player's reveal for `roll`, if all are in.
    fn collect(&self, roll: u32) -> Option<Reveals> {
        let mut reveals = Reveals::default();
        for colour in self.log.state().present().iter() {
            reveals.set(colour, self.reveal_of(roll, colour)?);
        }
        Some(reveals)
    }

    /// `seat`'s reveal for `roll` if this phone has it: its own from its
    /// dice chain, the others' as received.
    fn reveal_of(&self, roll: u32, seat: Colour) -> Option<Digest> {
        if seat == self.seat {
            self.chain.reveal(roll)
        } else {
            self.reveals.get(&(roll, seat)).copied()
        }
    }

    fn take_reveal(&mut self, reveal: Reveal, t: &mut dyn Transport) -> Result<(), PhoneError> {
        let Some(link) = self.log.state().link(reveal.seat) else {
            return Err(PhoneError::NotAPlayer(reveal.seat));
        };
        let due = match self.log.due() {
            Due::Roll { roll, .. } => roll,
            _ => self.log.state().rolls() + 1,
        };
        // Only the roll due and the next are kept; older ones are stale and
        // later ones come again when they are due.
        if reveal.roll < due || reveal.roll > due + 1 {
            return Ok(());
        }
        // Checked and kept already: a copy costs nothing (a player could
        // otherwise flood its valid reveal, hundreds of hashes each).
        if self.reveals.get(&(reveal.roll, reveal.seat)) == Some(&reveal.value) {
            return Ok(());
        }
        if !link.admits(reveal.roll, &reveal.value) {
            return Err(PhoneError::RevealMismatch(reveal.seat, reveal.roll));
        }
        self.reveals
            .insert((reveal.roll, reveal.seat), reveal.value);
        self.drive(t)
    }

    /// Takes entries from `from` in order, asking for what is missing and
    /// answering with this phone's entries where they win a conflict;
    /// `full`: the sender may have more after them.
    fn accept(
        &mut self,
        from: Colour,
        entries: Vec<Entry>,
        full: bool,
        t: &mut dyn Transport,
    ) -> Result<(), PhoneError> {
        let mut refused = None;
        // Where the sender's next batch starts once this one is gone
        // through to its end: right after it, which may lie far behind
        // this log's end while two branches are read from before their
        // fork (asking from this log's end would skip the fork and start
        // the search for it over, for ever).
        let mut next = None;
        for entry in entries {
            next = None;
            let index = entry.index;
            let since = self.log.entries().get(index as usize..).unwrap_or_default();
            // A certificate one player completed, signed after they played
            // past its place, is not taken: its proof takes the place at
            // once, so that the entries showing it are never dropped first
            // (the rest of the batch follows the certificate). A proof
            // that does not hold leaves the certificate to be checked as any
            // entry.
            //
            // The author's second act where this phone holds their first:
            // the proof takes the place at once, whichever act would win
            // it. Taking the winning act first and the proof after it is
            // two saves, and a kill or a full disk between them would lose
            // the act this phone held, and with it the proof, for good.
            let late = Entry::expose_late(&entry, since);
            let proof = since.first().and_then(|ours| Entry::expose(ours, &entry));
            if late.is_some() && self.expose(late, t)?
                || proof.is_some() && self.expose(proof, t)?
            {
                break;
            }
            match self.log.offer(entry.clone()) {
                Ok(offered) => {
                    self.backtrack[from.index()] = 0;
                    self.save(&entry, offered)?;
                    next = Some(index + 1);
                }
                Err(LogError::Duplicate { .. }) => next = Some(index + 1),
                Err(LogError::Gap { len, .. }) => {
                    send(t, from, &Message::Sync { from: len });
                    break;
                }
                Err(LogError::UnknownBranch { index }) => {
                    // The sender's log forks from this one somewhere
                    // before `index`: ask further back each time.
                    let backtrack = &mut self.backtrack[from.index()];
                    *backtrack = backtrack.saturating_mul(2).max(16);
                    let back = index.saturating_sub(*backtrack);
                    send(t, from, &Message::Sync { from: back });
                    break;
                }
                Err(LogError::Outranked { .. }) => {
                    // The fork is found: the next one is looked for from
                    // near, not from as far back as this one was.
                    self.backtrack[from.index()] = 0;
                    self.send_entries(from, index, t);
                    break;
                }
                Err(error) => {
                    refused = Some(error);
                    break;
                }
            }
        }
        if full && let Some(next) = next {
            send(t, from, &Message::Sync { from: next });
        }
        self.drive(t)?;
        match refused {
            Some(error) => Err(error.into()),
            None => Ok(()),
        }
    }

    fn answer_status(
        &mut self,
        from: Colour,
        len: u32,
        head: Digest,
        missing: Colours,
        t: &mut dyn Transport,
    ) {
        let ours = self.log.len();
        if head == self.log.head() {
            for message in self.missed(missing) {
                send(t, from, &message);
            }
        }
        if len > ours {
            send(t, from, &Message::Sync { from: ours });
        } else if len < ours || head != self.log.head() {
            let on_our_branch = len == 0 || self.log.hashes()[len as usize - 1] == head;
            let start = if on_our_branch {
                len
            } else {
                len.saturating_sub(16)
            };
            self.send_entries(from, start, t);
        }
    }

    /// What a phone at this log's head says it `missing` and this phone
    /// holds: for the roll due, this player's reveal (once sent) and the
    /// others' reveals it has; at the end, this player's signature.
    ///
    /// Others' reveals are passed on because a phone that stops right after
    /// sending its reveal to some of the others only would otherwise leave
    /// them disagreeing for good: those with its reveal wait on no one,
    /// those without it vote it gone, and no certificate gathers enough
    /// votes. Passing one on is safe: each is checked against its owner's
    /// dice commitment, and it was public once sent.
    fn missed(&self, missing: Colours) -> Vec<Message> {
        match self.log.due() {
            Due::Roll { roll, .. } => missing
                .iter()
                // This player's own reveal only once it was sent.
                .filter(|&seat| seat != self.seat || roll == self.revealed)
                .filter_map(|seat| {
                    let value = self.reveal_of(roll, seat)?;
                    Some(Message::Reveal(Reveal { roll, seat, value }))
                })
                .collect(),
            Due::Over(_) if missing.contains(self.seat) => self
                .signatures
                .get(&self.seat)
                .map(|&signature| Message::Result {
                    seat: self.seat,
                    head: self.log.head(),
                    signature,
                })
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Sends `to` the entries from index `from` on, one batch, unless it
    /// has not taken what was sent to it before: every batch costs this
    /// phone the encoding of a message full of entries, and a phone asking
    /// many thousand times a second without taking the answers would keep
    /// this one busy. It asks again once it has taken them (its status
    /// every second says where its log stands).
    fn send_entries(&self, to: Colour, from: u32, t: &mut dyn Transport) {
        if t.backlog(to) >= MAX_BACKLOG {
            return;
        }
        let entries = self.log.entries();
        let start = (from as usize).min(entries.len());
        if start < entries.len() {
            send(t, to, &Message::catch_up(&entries[start..]));
        }
    }

    /// Votes, for the entry after the head, for what this phone holds true:
    /// that the players the transport reports gone are gone; that this
    /// player is back while the computer plays its seat; that a player who
    /// asks to come back (by voting for it) is back. A player found gone
    /// again waits for both ([`State::may_return`](super::State::may_return)).
    fn vote(&mut self, t: &mut dyn Transport) -> Result<(), PhoneError> {
        let state = self.log.state();
        if matches!(state.due(), Due::Over(_)) {
            return Ok(());
        }
        let present = state.present();
        let away = |seat: Colour| {
            state.control(seat) == Some(Control::Absent)
                && !state.returning().contains(seat)
                && (present.is_empty() || state.may_return(seat))
        };
        let mut changes = Vec::new();
        if away(self.seat) {
            changes.push(Change::Back(self.seat));
        }
        if present.contains(self.seat) {
            let gone = self.gone.intersection(present).without(self.seat);
            if !gone.is_empty() {
                changes.push(Change::Gone(gone));
            }
            changes.extend(self.votes.keys().filter_map(|&(voter, change)| {
                (change == Change::Back(voter) && away(voter)).then_some(change)
            }));
        }
        let mut new = Vec::new();
        for change in changes {
            if self.votes.contains_key(&(self.seat, change)) {
                continue;
            }
            let log = &self.log;
            let vote = Vote::sign(
                &self.signer,
                log.game(),
                log.len(),
                log.head(),
                change,
                self.seat,
            );
            self.keep_vote(vote.clone());
            new.push(vote);
        }
        // Votes leave only once a certificate they complete is saved. A vote
        // that is a certificate by itself (its voter the only one needed),
        // sent and then lost here to a failed save or a crash, would let
        // this phone go on past a certificate the others hold: a late vote,
        // which they take for cheating.
        let head = self.log.head();
        self.certify(t)?;
        if self.log.head() == head {
            for vote in new {
                self.broadcast(t, &Message::Vote(vote));
            }
        }
        Ok(())
    }

    /// Keeps `vote`; a voter's vote that others are gone replaces the one
    /// they gave before (the set they report gone changed).
    fn keep_vote(&mut self, vote: Vote) {
        if let Change::Gone(_) = vote.change {
            self.votes.retain(|&(voter, change), _| {
                voter != vote.voter || !matches!(change, Change::Gone(_))
            });
        }
        self.votes.insert((vote.voter, vote.change), vote);
    }

    fn take_vote(&mut self, vote: Vote, t: &mut dyn Transport) -> Result<(), PhoneError> {
        if vote.index != self.log.len() || vote.prev != self.log.head() {
            return Ok(());
        }
        // The voter's vote for this change here is checked and kept
        // already (votes are cleared when the head moves): another copy,
        // even signed anew, costs no signature check.
        if self.votes.contains_key(&(vote.voter, vote.change)) {
            return Ok(());
        }
        let setup = self.log.setup();
        let what = Signable::Vote {
            game: setup.game,
            index: vote.index,
            prev: vote.prev,
            change: vote.change,
        };
        check_signature(setup, vote.voter, &what, &vote.signature)?;
        self.keep_vote(vote);
        self.vote(t).map_err(PhoneError::own)
    }

    /// Appends and sends a certificate once every vote it needs is in.
    fn certify(&mut self, t: &mut dyn Transport) -> Result<(), PhoneError> {
        let present = self.log.state().present();
        let changes: BTreeSet<Change> = self.votes.keys().map(|&(_, change)| change).collect();
        for change in changes {
            let votes: Option<Vec<(Colour, Signature)>> = change
                .voters(present)
                .iter()
                .map(|c| self.votes.get(&(c, change)).map(|v| (c, v.signature)))
                .collect();
            let Some(votes) = votes else {
                continue;
            };
            let entry = Entry {
                index: self.log.len(),
                prev: self.log.head(),
                kind: Kind::Absent(Certificate { change, votes }),
            };
            // A certificate the rules refuse (too few voters) stays a set of
            // votes; the watch keeps reporting and votes come again.
            if let Ok(offered) = self.log.offer(entry.clone()) {
                self.save(&entry, offered)?;
                self.broadcast(t, &Message::Entry(entry));
                return self.drive(t);
            }
        }
        Ok(())
    }

    fn sign_result(&mut self, t: &mut dyn Transport) {
        if self.signatures.contains_key(&self.seat) {
            return;
        }
        let Some(result) = self.log.result() else {
            return;
        };
        let signature = result.sign(&self.signer);
        self.signatures.insert(self.seat, signature);
        let seat = self.seat;
        let head = self.log.head();
        self.broadcast(
            t,
            &Message::Result {
                seat,
                head,
                signature,
            },
        );
    }

    fn take_signature(
        &mut self,
        seat: Colour,
        head: Digest,
        signature: Signature,
    ) -> Result<(), PhoneError> {
        // A signature for another log (the sender, or this phone, is still
        // on a branch that loses) is not for this result.
        let Some(result) = self.log.result().filter(|r| r.head == head) else {
            return Ok(());
        };
        // The seat's signature of this result is checked and kept already
        // (cleared when the log moves): another, even signed anew, costs no
        // check.
        if self.signatures.contains_key(&seat) {
            return Ok(());
        }
        let verifier = self.log.setup().verifiers[seat.index()]
            .as_ref()
            .ok_or(PhoneError::NotAPlayer(seat))?;
        if !result.verify(verifier, &signature) {
            return Err(PhoneError::BadResultSignature(seat));
        }
        self.signatures.insert(seat, signature);
        Ok(())
    }
}

fn send(t: &mut dyn Transport, to: Colour, message: &Message) {
    t.send(to, &message.encode());
}
