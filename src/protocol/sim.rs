//! An in-process network of phones on a virtual clock, with fault injection:
//! lost, duplicated, delayed (hence reordered) messages, a partition, and a
//! phone that crashes and restarts from its files. Everything is drawn from
//! one seed, so a failing run can be replayed. Used by the tests and the
//! benchmarks; the players' taps and moves are automated (random legal moves
//! after a random think time).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::PathBuf;

use libp2p_identity::Keypair;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use super::colours::Colours;
use super::dice::Reveals;
use super::dice::{DiceChain, DiceSecret};
use super::digest::Digest;
use super::event::{Act, Auto, Certificate, Change, Entry, Kind, Signed, Vote};
use super::header::{Header, HeaderError, Seat, SignedHeader, TurnTimer};
use super::identity::{PublicKey, Signer};
use super::log::Log;
use super::phone::{Phone, PhoneError, Transport};
use super::presence::{Millis, Watch};
use super::result::{GameResult, SignedResult};
use super::state::{Actor, Due, State};
use super::store::{Store, StoreError};
use super::wire::Message;
use crate::bot::Level;
use crate::rules::{Colour, FirstPlayer, HouseRules, RuleSet, Seats};

/// A player of a simulated game: their key and dice secret.
#[derive(Clone, Debug)]
pub struct Player {
    pub seat: Colour,
    pub keypair: Keypair,
    pub secret: DiceSecret,
}

/// The faults of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    /// Per mille of messages lost.
    pub drop: u16,
    /// Per mille of messages delivered twice.
    pub duplicate: u16,
    /// Each delivery takes 1 ms plus up to this much more, so messages
    /// overtake each other.
    pub max_delay: Millis,
    /// Cut the phones into two sides for a while (long enough, sometimes,
    /// for each side to take over the other's seats).
    pub partition: bool,
    /// One phone crashes and restarts from disk (needs [`Config::dir`]).
    pub crash: bool,
}

impl Faults {
    /// Faults drawn at random: some loss, duplication and delay, and maybe
    /// a partition and a crash.
    pub fn random(seed: u64) -> Faults {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xfa17);
        Faults {
            drop: below(&mut rng, 150) as u16,
            duplicate: below(&mut rng, 150) as u16,
            max_delay: below(&mut rng, 400),
            partition: below(&mut rng, 3) == 0,
            crash: below(&mut rng, 3) == 0,
        }
    }
}

/// A simulated game.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    pub seats: Seats,
    /// Seated colours played by the computer from the start (at least one
    /// seat must be a phone).
    pub computers: Colours,
    pub rules: RuleSet,
    pub first: FirstPlayer,
    pub timer: TurnTimer,
    pub grace_secs: u16,
    pub rolls: u32,
    /// Players who never tap: their turn timer plays for them.
    pub idle: Colours,
    /// A player who leaves on purpose once their log has this many entries.
    pub leave: Option<(Colour, u32)>,
    /// Phones that go away for good at this time, without leaving.
    pub vanish: Option<(Colours, Millis)>,
    pub faults: Faults,
    /// Where each phone saves its files (in a folder per colour); `None`
    /// to keep everything in memory.
    pub dir: Option<PathBuf>,
    /// Virtual time after which the run gives up.
    pub limit: Millis,
    /// The level of the computer seats and of the computer playing for
    /// absent players.
    pub level: Level,
}

impl Config {
    /// A game of phones on `seats` under the classic rules, with no faults.
    pub fn new(seed: u64, seats: Seats) -> Config {
        Config {
            seed,
            seats,
            computers: Colours::NONE,
            rules: RuleSet::Classic(HouseRules::default()),
            first: FirstPlayer::Random,
            timer: TurnTimer::None,
            grace_secs: 45,
            rolls: 4096,
            idle: Colours::NONE,
            leave: None,
            vanish: None,
            faults: Faults::default(),
            dir: None,
            limit: 6 * 60 * 60 * 1000,
            level: Level::Medium,
        }
    }
}

/// Messages and bytes sent, by kind (a broadcast counts once, as one
/// publish on the network).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Players' roll entries.
    pub rolls: u64,
    /// Other entries (moves, certificates, returns, leaving).
    pub entries: u64,
    pub reveals: u64,
    pub votes: u64,
    pub catch_up: u64,
    pub status: u64,
    pub results: u64,
    pub bytes: u64,
}

impl Traffic {
    fn count(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len() as u64;
        match Message::decode(bytes) {
            Ok(Message::Entry(Entry {
                kind:
                    Kind::Player(Signed {
                        act: Act::Roll(_), ..
                    }),
                ..
            })) => self.rolls += 1,
            Ok(Message::Entry(_)) => self.entries += 1,
            Ok(Message::Reveal(_)) => self.reveals += 1,
            Ok(Message::Vote(_)) => self.votes += 1,
            Ok(Message::Sync { .. } | Message::Entries { .. }) => self.catch_up += 1,
            Ok(Message::Status { .. }) => self.status += 1,
            Ok(Message::Result { .. }) | Err(_) => self.results += 1,
        }
    }
}

/// How a run ended.
#[derive(Debug)]
pub struct Outcome {
    /// Whether every phone still in the game ended over, with one log.
    pub converged: bool,
    /// Each remaining phone's entry hashes.
    pub logs: Vec<(Colour, Vec<Digest>)>,
    pub results: Vec<(Colour, Option<GameResult>)>,
    /// Each remaining phone's state at the end.
    pub states: Vec<(Colour, State)>,
    pub signed: Vec<(Colour, Option<SignedResult>)>,
    pub time: Millis,
    pub traffic: Traffic,
    /// Messages an honest phone refused (stale or lost races are not
    /// refusals; these should not happen), with the reason; and restarts
    /// that failed.
    pub refused: Vec<String>,
    /// How many times a crashed phone restarted from its files: a test of
    /// crashes checks that one happened before the game ended.
    pub restarts: u32,
    /// When every phone first had the game over on one log.
    pub ended: Option<Millis>,
    /// When a phone crashed, if one did.
    pub crashed: Option<Millis>,
}

/// The phones of `config` and its signed header.
pub fn setup(config: &Config) -> (SignedHeader, Vec<Player>) {
    let seats = config.seats;
    let mut players = Vec::new();
    let mut header_seats = [None; 4];
    for colour in seats.iter() {
        header_seats[colour.index()] = Some(if config.computers.contains(colour) {
            Seat::Computer {
                level: config.level,
            }
        } else {
            let derive = |what: u8| {
                let mut bytes = [0u8; 32];
                bytes[..8].copy_from_slice(&config.seed.to_le_bytes());
                bytes[8] = colour.index() as u8;
                bytes[9] = what;
                bytes
            };
            let keypair =
                Keypair::ed25519_from_bytes(derive(1)).expect("32 bytes are an ed25519 secret key");
            let secret = DiceSecret::from_bytes(derive(2));
            let commitment = DiceChain::new(&secret, config.rolls).commitment();
            let key = PublicKey::of(&keypair).expect("the key is ed25519");
            players.push(Player {
                seat: colour,
                keypair,
                secret,
            });
            Seat::Player { key, commitment }
        });
    }
    let mut nonce = [0u8; 32];
    nonce[..8].copy_from_slice(&config.seed.to_le_bytes());
    let mut header = Header::new(nonce, config.rules, header_seats);
    header.first = config.first;
    header.timer = config.timer;
    header.grace_secs = config.grace_secs;
    header.rolls = config.rolls;
    header.stand_in = config.level;
    let signers: Vec<Signer> = players
        .iter()
        .map(|p| Signer::new(&p.keypair).expect("the key is ed25519"))
        .collect();
    let signers: Vec<&Signer> = signers.iter().collect();
    (SignedHeader::sign_all(header, &signers), players)
}

/// What happens at a moment of the run.
#[derive(Debug)]
enum Event {
    Deliver {
        to: Colour,
        from: Colour,
        bytes: Vec<u8>,
    },
    Tick(Colour),
    /// The automated player acts if the log's head is still this one.
    Act(Colour, Digest),
    Crash(Colour),
    Restart(Colour),
    /// The phone goes away for good.
    Vanish(Colour),
    /// The network splits: these colours on one side, the rest on the other.
    Split(Colours),
    Heal,
}

#[derive(Debug)]
struct Scheduled {
    at: Millis,
    seq: u64,
    event: Event,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

/// Messages a phone sent during one call.
#[derive(Default)]
struct Outbox {
    sent: Vec<(Option<Colour>, Vec<u8>)>,
}

impl Transport for Outbox {
    fn send(&mut self, to: Colour, message: &[u8]) {
        self.sent.push((Some(to), message.to_vec()));
    }
    fn broadcast(&mut self, message: &[u8]) {
        self.sent.push((None, message.to_vec()));
    }
}

/// One simulated phone.
struct Node {
    player: Player,
    /// `None` while crashed, or once its leave is everywhere.
    phone: Option<Phone>,
    watch: Watch,
    /// The log head at which the automated player last planned to act.
    planned: Option<Digest>,
    /// The player left on purpose.
    left: bool,
    /// The phone went away for good.
    gone: bool,
    dir: Option<PathBuf>,
}

/// A simulated game in progress.
pub struct Sim {
    config: Config,
    header: SignedHeader,
    nodes: Vec<Node>,
    queue: BinaryHeap<Reverse<Scheduled>>,
    seq: u64,
    now: Millis,
    rng: ChaCha8Rng,
    /// While a partition lasts: the colours on one side.
    side: Option<Colours>,
    traffic: Traffic,
    refused: Vec<String>,
    restarts: u32,
    ended: Option<Millis>,
    crashed: Option<Millis>,
}

/// How often each phone ticks and looks at its watch.
const TICK: Millis = 1000;

fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    // The small modulo bias does not matter for drawing faults.
    rng.next_u64() % n.max(1)
}

impl Sim {
    pub fn new(config: Config) -> Result<Sim, PhoneError> {
        let (header, players) = setup(&config);
        let mut nodes = Vec::new();
        for player in players {
            let dir = match &config.dir {
                Some(base) => {
                    let dir = base.join(player.seat.name());
                    std::fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
                        path: dir.clone(),
                        source,
                    })?;
                    Some(dir)
                }
                None => None,
            };
            let phone = Phone::new(
                header.clone(),
                &player.keypair,
                player.secret.clone(),
                dir.as_deref(),
            )?;
            nodes.push(Node {
                player,
                phone: Some(phone),
                watch: Watch::new(&header.header, 0),
                planned: None,
                left: false,
                gone: false,
                dir,
            });
        }
        let mut sim = Sim {
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            config,
            header,
            nodes,
            queue: BinaryHeap::new(),
            seq: 0,
            now: 0,
            side: None,
            traffic: Traffic::default(),
            refused: Vec::new(),
            restarts: 0,
            ended: None,
            crashed: None,
        };
        sim.plan_faults();
        for i in 0..sim.nodes.len() {
            let offset = below(&mut sim.rng, TICK);
            sim.schedule(offset, Event::Tick(sim.nodes[i].player.seat));
            sim.call(i, |phone, out| phone.start(out));
        }
        Ok(sim)
    }

    fn plan_faults(&mut self) {
        let faults = self.config.faults;
        let phones: Vec<Colour> = self.nodes.iter().map(|n| n.player.seat).collect();
        if faults.partition && phones.len() >= 2 {
            let start = 5_000 + below(&mut self.rng, 120_000);
            let length = 10_000 + below(&mut self.rng, 110_000);
            let mut side = Colours::NONE;
            while side.is_empty() || side.len() == phones.len() {
                side = phones
                    .iter()
                    .copied()
                    .filter(|_| below(&mut self.rng, 2) == 0)
                    .collect();
            }
            self.schedule(start, Event::Split(side));
            self.schedule(start + length, Event::Heal);
        }
        if let Some((who, at)) = self.config.vanish {
            for seat in who.iter() {
                self.schedule(at, Event::Vanish(seat));
            }
        }
        if faults.crash && self.config.dir.is_some() {
            let who = phones[below(&mut self.rng, phones.len() as u64) as usize];
            let at = 2_000 + below(&mut self.rng, 150_000);
            let down = 1_000 + below(&mut self.rng, 90_000);
            self.schedule(at, Event::Crash(who));
            self.schedule(at + down, Event::Restart(who));
        }
    }

    fn schedule(&mut self, at: Millis, event: Event) {
        self.seq += 1;
        self.queue.push(Reverse(Scheduled {
            at,
            seq: self.seq,
            event,
        }));
    }

    fn node(&self, seat: Colour) -> Option<usize> {
        self.nodes.iter().position(|n| n.player.seat == seat)
    }

    /// Calls the phone of node `i` and sends what it sent.
    fn call(
        &mut self,
        i: usize,
        f: impl FnOnce(&mut Phone, &mut Outbox) -> Result<(), PhoneError>,
    ) {
        let mut out = Outbox::default();
        let Some(phone) = self.nodes[i].phone.as_mut() else {
            return;
        };
        if let Err(error) = f(phone, &mut out)
            && self.refused.len() < 20
        {
            let seat = self.nodes[i].player.seat;
            self.refused
                .push(format!("{seat} at {} ms: {error}", self.now));
        }
        let from = self.nodes[i].player.seat;
        for (to, bytes) in out.sent {
            self.traffic.count(&bytes);
            let targets: Vec<Colour> = match to {
                Some(to) => vec![to],
                None => self
                    .nodes
                    .iter()
                    .map(|n| n.player.seat)
                    .filter(|&c| c != from)
                    .collect(),
            };
            for to in targets {
                self.post(from, to, &bytes);
            }
        }
        self.plan_act(i);
    }

    /// Puts one message on the simulated network, with its faults.
    fn post(&mut self, from: Colour, to: Colour, bytes: &[u8]) {
        let faults = self.config.faults;
        if below(&mut self.rng, 1000) < u64::from(faults.drop) {
            return;
        }
        let copies = if below(&mut self.rng, 1000) < u64::from(faults.duplicate) {
            2
        } else {
            1
        };
        for _ in 0..copies {
            let delay = 1 + below(&mut self.rng, faults.max_delay + 1);
            let event = Event::Deliver {
                to,
                from,
                bytes: bytes.to_vec(),
            };
            self.schedule(self.now + delay, event);
        }
    }

    fn cut_off(&self, a: Colour, b: Colour) -> bool {
        self.side
            .is_some_and(|side| side.contains(a) != side.contains(b))
    }

    /// Plans the automated player's next tap or move, after a think time.
    fn plan_act(&mut self, i: usize) {
        let node = &self.nodes[i];
        let Some(phone) = &node.phone else {
            return;
        };
        if self.config.idle.contains(node.player.seat) || !phone.waiting().mine {
            return;
        }
        let head = phone.log().head();
        if node.planned == Some(head) {
            return;
        }
        self.nodes[i].planned = Some(head);
        let think = 50 + below(&mut self.rng, 1500);
        let seat = self.nodes[i].player.seat;
        self.schedule(self.now + think, Event::Act(seat, head));
    }

    /// The automated player taps the die or plays a random legal move.
    fn act(&mut self, i: usize, head: Digest) {
        let Some(phone) = &self.nodes[i].phone else {
            return;
        };
        if phone.log().head() != head {
            return;
        }
        let pick = self.rng.next_u64();
        match phone.log().due() {
            Due::Roll { .. } => self.call(i, |phone, out| phone.roll(out)),
            Due::Move { .. } => {
                let moves = phone
                    .log()
                    .state()
                    .game()
                    .map(|g| g.legal_moves())
                    .unwrap_or_default();
                if let Some(&mv) = moves.get((pick % moves.len().max(1) as u64) as usize) {
                    self.call(i, |phone, out| phone.play(mv, out));
                }
            }
            Due::Over(_) => {}
        }
    }

    fn leave_if_due(&mut self, i: usize) {
        let Some((seat, at)) = self.config.leave else {
            return;
        };
        let node = &self.nodes[i];
        if node.player.seat != seat || node.left {
            return;
        }
        if node.phone.as_ref().is_some_and(|p| p.log().len() >= at) {
            self.call(i, |phone, out| phone.leave(out));
            self.nodes[i].left = true;
        }
    }

    /// A phone whose player left stops once every phone still running has
    /// the leave (as the app lingers until its peers hold it): it signs it
    /// only in its next turn.
    fn stop_if_left(&mut self, i: usize) {
        let seat = self.nodes[i].player.seat;
        let has_left = |n: &Node| n.phone.as_ref().is_none_or(|p| p.log().has_left(seat));
        if self.nodes[i].left && self.nodes.iter().all(has_left) {
            self.nodes[i].phone = None;
        }
    }

    fn restart(&mut self, i: usize) {
        let Some(dir) = self.nodes[i].dir.clone() else {
            return;
        };
        // A simulated crash stops a phone between calls, never inside a
        // write, so a damaged file (`Corrupt`) is the store's fault and a
        // failure like any other.
        let restored = match Store::open(&dir) {
            Ok(restored) => restored,
            Err(error) => {
                self.refused.push(format!("restart failed: {error}"));
                return;
            }
        };
        match Phone::resume(restored, &self.nodes[i].player.keypair) {
            Ok(phone) => {
                self.restarts += 1;
                self.nodes[i].phone = Some(phone);
                self.nodes[i].watch = Watch::new(&self.header.header, self.now);
                self.nodes[i].planned = None;
                self.call(i, |phone, out| phone.start(out));
            }
            Err(error) => self.refused.push(format!("restart failed: {error}")),
        }
    }

    /// Whether every phone still in the game is up, over and on one log.
    fn settled(&self) -> bool {
        let mut heads = self.nodes.iter().filter(|n| !n.left && !n.gone).map(|n| {
            n.phone
                .as_ref()
                .filter(|p| matches!(p.log().due(), Due::Over(_)))
                .map(|p| p.log().head())
        });
        let Some(Some(first)) = heads.next() else {
            return false;
        };
        heads.all(|h| h == Some(first))
    }

    /// Runs until the game is over on every phone with one log (and ten
    /// seconds more, for the result signatures to go round, with every
    /// phone up at their end), or the time limit.
    pub fn run(mut self) -> Outcome {
        let mut until = self.config.limit;
        while let Some(Reverse(next)) = self.queue.pop() {
            if next.at > until {
                break;
            }
            self.now = next.at;
            match next.event {
                Event::Deliver { to, from, bytes } => {
                    if self.cut_off(from, to) {
                        continue;
                    }
                    let Some(i) = self.node(to) else { continue };
                    if self.nodes[i].phone.is_none() {
                        continue;
                    }
                    let now = self.now;
                    self.nodes[i].watch.heard(from, now);
                    self.call(i, |phone, out| phone.receive(from, &bytes, out));
                }
                Event::Tick(seat) => {
                    let Some(i) = self.node(seat) else { continue };
                    self.schedule(self.now + TICK, Event::Tick(seat));
                    self.call(i, |phone, out| phone.tick(out));
                    let now = self.now;
                    let node = &mut self.nodes[i];
                    if let Some(phone) = &node.phone {
                        let seen = node.watch.observe(now, phone);
                        self.call(i, |phone, out| phone.observe(seen, out));
                    }
                }
                Event::Act(seat, head) => {
                    if let Some(i) = self.node(seat) {
                        self.act(i, head);
                    }
                }
                Event::Crash(seat) => {
                    if let Some(i) = self.node(seat)
                        && !self.nodes[i].left
                    {
                        self.nodes[i].phone = None;
                        self.crashed = Some(self.now);
                    }
                }
                Event::Restart(seat) => {
                    if let Some(i) = self.node(seat)
                        && !self.nodes[i].left
                        && !self.nodes[i].gone
                    {
                        self.restart(i);
                    }
                }
                Event::Vanish(seat) => {
                    if let Some(i) = self.node(seat) {
                        self.nodes[i].phone = None;
                        self.nodes[i].gone = true;
                    }
                }
                Event::Split(side) => self.side = Some(side),
                Event::Heal => self.side = None,
            }
            for i in 0..self.nodes.len() {
                self.leave_if_due(i);
                self.stop_if_left(i);
            }
            // A phone that crashes in those ten seconds unsettles the game
            // again: go on until it is back and on the one log.
            if !self.settled() {
                until = self.config.limit;
            } else if until == self.config.limit {
                until = self.now + 10_000;
                self.ended.get_or_insert(self.now);
            }
        }
        self.outcome()
    }

    fn outcome(self) -> Outcome {
        let converged = self.settled();
        let phones = || {
            self.nodes
                .iter()
                .filter(|n| !n.left && !n.gone)
                .filter_map(|n| n.phone.as_ref().map(|p| (n.player.seat, p)))
        };
        Outcome {
            converged,
            logs: phones()
                .map(|(c, p)| (c, p.log().hashes().to_vec()))
                .collect(),
            results: phones().map(|(c, p)| (c, p.log().result())).collect(),
            states: phones().map(|(c, p)| (c, *p.log().state())).collect(),
            signed: phones().map(|(c, p)| (c, p.result())).collect(),
            time: self.now,
            traffic: self.traffic,
            refused: self.refused.clone(),
            restarts: self.restarts,
            ended: self.ended,
            crashed: self.crashed,
        }
    }
}

/// A game played on one log with no network, each player's phone acting at
/// once: for tests that need a game in progress, the fuzz target and the
/// benchmarks. Players play the computer's move.
#[derive(Clone, Debug)]
pub struct Table {
    log: Log,
    players: Vec<(Player, Signer, DiceChain)>,
}

impl Table {
    pub fn new(config: &Config) -> Result<Table, HeaderError> {
        let (header, players) = setup(config);
        let rolls = header.header.rolls;
        let log = Log::new(header)?;
        let players = players
            .into_iter()
            .map(|p| {
                let signer = Signer::new(&p.keypair).expect("the key is ed25519");
                let chain = DiceChain::new(&p.secret, rolls);
                (p, signer, chain)
            })
            .collect();
        Ok(Table { log, players })
    }

    pub fn log(&self) -> &Log {
        &self.log
    }

    pub fn log_mut(&mut self) -> &mut Log {
        &mut self.log
    }

    /// What the table keeps of `seat`'s player.
    fn seated(&self, seat: Colour) -> Option<&(Player, Signer, DiceChain)> {
        self.players.iter().find(|(p, _, _)| p.seat == seat)
    }

    /// `seat`'s player: its key and dice secret, for a phone of its own.
    pub fn player(&self, seat: Colour) -> Option<&Player> {
        self.seated(seat).map(|(p, _, _)| p)
    }

    pub fn signer(&self, seat: Colour) -> Option<&Signer> {
        self.seated(seat).map(|(_, s, _)| s)
    }

    pub fn chain(&self, seat: Colour) -> Option<&DiceChain> {
        self.seated(seat).map(|(_, _, c)| c)
    }

    /// `seat`'s signed `act` as the next entry.
    pub fn sign(&self, seat: Colour, act: Act) -> Option<Entry> {
        let log = &self.log;
        let signer = self.signer(seat)?;
        Some(Entry::sign(
            signer,
            log.game(),
            log.len(),
            log.head(),
            seat,
            act,
        ))
    }

    /// `voter`'s vote for `change` at the next entry.
    pub fn vote(&self, change: Change, voter: Colour) -> Option<Vote> {
        let log = &self.log;
        let signer = self.signer(voter)?;
        Some(Vote::sign(
            signer,
            log.game(),
            log.len(),
            log.head(),
            change,
            voter,
        ))
    }

    /// The certificate of `change` as the next entry, voted by everyone it
    /// needs ([`Change::voters`]).
    pub fn certificate(&self, change: Change) -> Option<Entry> {
        let votes = change
            .voters(self.log.state().present())
            .iter()
            .map(|voter| Some((voter, self.vote(change, voter)?.signature)))
            .collect::<Option<_>>()?;
        Some(Entry {
            index: self.log.len(),
            prev: self.log.head(),
            kind: Kind::Absent(Certificate { change, votes }),
        })
    }

    /// Every present player's reveal for the roll due.
    pub fn reveals(&self) -> Option<Reveals> {
        let Due::Roll { roll, .. } = self.log.due() else {
            return None;
        };
        let mut reveals = Reveals::default();
        for colour in self.log.state().present().iter() {
            reveals.set(colour, self.chain(colour)?.reveal(roll)?);
        }
        Some(reveals)
    }

    /// The entry an honest phone writes next, if the game is not over.
    pub fn next_entry(&self) -> Option<Entry> {
        let log = &self.log;
        let unsigned = |auto| Entry {
            index: log.len(),
            prev: log.head(),
            kind: Kind::Computer(auto),
        };
        match log.due() {
            Due::Roll {
                by: Actor::Player(seat),
                ..
            } => self.sign(seat, Act::Roll(self.reveals()?)),
            Due::Roll { .. } => Some(unsigned(Auto::Roll(self.reveals()?))),
            Due::Move { by, .. } => {
                let mv = log.computer_move()?;
                match by {
                    Actor::Player(seat) => self.sign(seat, Act::Move { mv, auto: false }),
                    Actor::Computer => Some(unsigned(Auto::Move(mv))),
                }
            }
            Due::Over(_) => None,
        }
    }

    /// Appends the next entry; false once the game is over.
    pub fn step(&mut self) -> bool {
        match self.next_entry() {
            Some(entry) => self.log.offer(entry).is_ok(),
            None => false,
        }
    }
}
