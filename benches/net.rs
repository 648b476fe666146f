//! The byte channel's latency over real libp2p connections on loopback:
//! one node sends a message to three others (a move broadcast in a game of
//! four), timed until all three have taken it. Criterion measures the mean;
//! the p50 and p99 over 1,000 broadcasts are printed after it
//! (docs/performance.md, "Networking").
//!
//! Then whole games between `clovece host`/`join` processes (release
//! build, `--trace` timestamps on one clock): tap → every one of 4 peers
//! has applied the entry, and the time from an app restart or a restored
//! link to caught-up. These are printed, not measured by criterion.

use std::time::{Duration, Instant};

use clovece::net::{Config, Event, Node};
use criterion::{Criterion, criterion_group, criterion_main};
use libp2p::PeerId;
use libp2p::identity::Keypair;
use tokio::runtime::Runtime;
use tokio::sync::mpsc;

type Command = Box<dyn FnOnce(&mut Node) + Send>;

/// Four nodes in a full mesh; node 0 sends, the others report messages.
struct Mesh {
    ids: Vec<PeerId>,
    sender: mpsc::UnboundedSender<Command>,
    /// The other nodes' command channels: their tasks run while these do.
    _others: Vec<mpsc::UnboundedSender<Command>>,
    delivered: mpsc::UnboundedReceiver<Vec<u8>>,
}

impl Mesh {
    async fn start() -> Mesh {
        let config = Config {
            listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
            mdns: false,
            ..Config::default()
        };
        let mut nodes = Vec::new();
        for _ in 0..4 {
            nodes.push(
                Node::start(Keypair::generate_ed25519(), config.clone())
                    .await
                    .unwrap(),
            );
        }
        let ids: Vec<PeerId> = nodes.iter().map(Node::peer_id).collect();
        let addrs: Vec<_> = nodes.iter().map(Node::listen_addrs).collect();
        for (i, node) in nodes.iter_mut().enumerate() {
            for j in 0..4 {
                if i != j {
                    node.add_addrs(ids[j], addrs[j].clone());
                    node.keep(ids[j]);
                }
            }
        }
        let (report, delivered) = mpsc::unbounded_channel();
        let mut commands = Vec::new();
        for mut node in nodes {
            let (tx, mut rx) = mpsc::unbounded_channel::<Command>();
            commands.push(tx);
            let report = report.clone();
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        command = rx.recv() => match command {
                            Some(f) => f(&mut node),
                            None => return,
                        },
                        event = node.next() => {
                            if let Event::Message { bytes, .. } = event {
                                let _ = report.send(bytes);
                            }
                        }
                    }
                }
            });
        }
        let sender = commands.remove(0);
        let mut mesh = Mesh {
            ids,
            sender,
            _others: commands,
            delivered,
        };
        // Warm up: every connection is up once a broadcast gets through.
        mesh.broadcast(u64::MAX).await;
        mesh
    }

    /// Sends message `k` from node 0 to the three others and waits until all
    /// three have it.
    async fn broadcast(&mut self, k: u64) -> Duration {
        let start = Instant::now();
        let targets = self.ids[1..].to_vec();
        let bytes = k.to_le_bytes().to_vec();
        let _ = self.sender.send(Box::new(move |node: &mut Node| {
            for to in targets {
                node.send(to, bytes.clone()).unwrap();
            }
        }));
        let mut got = 0;
        while got < 3 {
            let m = self.delivered.recv().await.unwrap();
            if m == k.to_le_bytes() {
                got += 1;
            }
        }
        start.elapsed()
    }
}

fn broadcast(c: &mut Criterion) {
    let runtime = Runtime::new().unwrap();
    let mut mesh = runtime.block_on(Mesh::start());
    let mut k = 0;
    c.bench_function("net/broadcast_to_3_peers_loopback", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    k += 1;
                    total += mesh.broadcast(k).await;
                }
                total
            })
        })
    });
    let mut samples: Vec<Duration> = runtime.block_on(async {
        let mut samples = Vec::new();
        for _ in 0..1000 {
            k += 1;
            samples.push(mesh.broadcast(k).await);
        }
        samples
    });
    samples.sort();
    println!(
        "net/broadcast_to_3_peers_loopback over 1000 broadcasts: p50 {:?}, p99 {:?}, max {:?}",
        samples[500], samples[990], samples[999]
    );
}

/// A peer restarts (same key, new port) while another holds 50 messages for
/// it: time from the restarted node's start until it has all of them (it
/// dials the other with the address it saved). The game log's catch-up
/// rides on this.
fn restart(_: &mut Criterion) {
    let runtime = Runtime::new().unwrap();
    let config = Config {
        listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
        mdns: false,
        ..Config::default()
    };
    let mut samples: Vec<Duration> = runtime.block_on(async {
        let mut a = Node::start(Keypair::generate_ed25519(), config.clone())
            .await
            .unwrap();
        let (a_id, a_addrs) = (a.peer_id(), a.listen_addrs());
        let b_key = Keypair::generate_ed25519();
        let b_id = b_key.public().to_peer_id();
        let (tx, mut rx) = mpsc::unbounded_channel::<Command>();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    command = rx.recv() => match command {
                        Some(f) => f(&mut a),
                        None => return,
                    },
                    _ = a.next() => {}
                }
            }
        });
        let mut samples = Vec::new();
        for round in 0..20u32 {
            let _ = tx.send(Box::new(move |a: &mut Node| {
                for i in 0..50u32 {
                    a.send(b_id, (round * 100 + i).to_le_bytes().to_vec())
                        .unwrap();
                }
            }));
            let start = Instant::now();
            let mut b = Node::start(b_key.clone(), config.clone()).await.unwrap();
            b.add_addrs(a_id, a_addrs.clone());
            b.keep(a_id);
            let mut got = 0;
            while got < 50 {
                // A message of the round before may come again (b died
                // before acknowledging it); only this round's count.
                if let Event::Message { bytes, .. } = b.next().await
                    && let Ok(n) = <[u8; 4]>::try_from(bytes.as_slice())
                    && u32::from_le_bytes(n) >= round * 100
                {
                    got += 1;
                }
            }
            samples.push(start.elapsed());
            // b "dies": a notices the connection drop before the next round.
            drop(b);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        samples
    });
    samples.sort();
    println!(
        "net/restart_to_caught_up_50_messages over 20 restarts: p50 {:?}, max {:?}",
        samples[10], samples[19]
    );
}

#[path = "../tests/process/mod.rs"]
mod process;

use process::{Hand, Proc};

/// What a process's `trace:` lines say.
#[derive(Default)]
struct Trace {
    /// (kind, entry index, µs) of each of this player's taps.
    acts: Vec<(String, u32, u64)>,
    /// (log length, µs) each time the log grew (or shrank).
    applied: Vec<(u32, u64)>,
}

impl Trace {
    fn read(lines: &[String]) -> Trace {
        let mut trace = Trace::default();
        for line in lines {
            let words: Vec<&str> = line.split(' ').collect();
            match words.as_slice() {
                ["trace:", "act", kind, index, at] => trace.acts.push((
                    kind.to_string(),
                    index.parse().unwrap(),
                    at.parse().unwrap(),
                )),
                ["trace:", "applied", len, at] => trace
                    .applied
                    .push((len.parse().unwrap(), at.parse().unwrap())),
                _ => {}
            }
        }
        trace
    }

    /// When the log first held more than `index` entries, at or after `from`.
    fn holds(&self, index: u32, from: u64) -> Option<u64> {
        self.applied
            .iter()
            .find(|&&(len, at)| len > index && at >= from)
            .map(|&(_, at)| at)
    }

    /// The log's length at `at`.
    fn len_at(&self, at: u64) -> u32 {
        self.applied
            .iter()
            .take_while(|&&(_, t)| t <= at)
            .last()
            .map_or(0, |&(len, _)| len)
    }
}

fn now_micros() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

/// Tap → applied on all 4 peers, over whole 4-player games until at least
/// 1,000 moves are timed.
fn tap_to_applied(_: &mut Criterion) {
    let (mut moves, mut rolls) = (Vec::new(), Vec::new());
    let mut games = 0;
    while moves.len() < 1000 {
        games += 1;
        let (_dirs, procs) = process::room(4, &[], 0);
        let traces: Vec<Trace> = procs
            .into_iter()
            .map(|p| Trace::read(&p.run_out()))
            .collect();
        for actor in &traces {
            for (kind, index, at) in &actor.acts {
                let Some(done) = traces
                    .iter()
                    .map(|t| t.holds(*index, *at))
                    .collect::<Option<Vec<u64>>>()
                else {
                    continue;
                };
                let took = Duration::from_micros(done.into_iter().max().unwrap() - at);
                match kind.as_str() {
                    "move" => moves.push(took),
                    _ => rolls.push(took),
                }
            }
        }
    }
    for (name, samples) in [("move", &mut moves), ("roll", &mut rolls)] {
        samples.sort();
        println!(
            "net/game/tap_{name}_to_applied_on_4_peers over {} taps in {games} games: p50 {:?}, p99 {:?}, max {:?}",
            samples.len(),
            percentile(samples, 50),
            percentile(samples, 99),
            samples[samples.len() - 1]
        );
    }
}

/// A 3-player game where one guest is interrupted by `cut` (which returns
/// the moment the interruption ends and the guest as it now runs): from
/// then until the guest holds every entry the others held (caught up), and
/// until every peer holds an entry made after it (the game moves again).
fn interrupted(rounds: usize, name: &str, cut: impl Fn(Proc, &std::path::Path) -> (u64, Proc)) {
    let (mut caught_up, mut moving) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (dirs, mut procs) = process::room(3, &[], 20);
        procs[2].wait_for_entries(40);
        let victim = procs.remove(2);
        let (at, victim) = cut(victim, dirs[2].path());
        procs.push(victim);
        let traces: Vec<Trace> = procs
            .into_iter()
            .map(|p| Trace::read(&p.run_out()))
            .collect();
        let others = traces[..2].iter().map(|t| t.len_at(at)).max().unwrap();
        let victim = &traces[2];
        let Some(held) = victim
            .applied
            .iter()
            .find(|&&(len, t)| len >= others && t >= at)
        else {
            continue;
        };
        caught_up.push(Duration::from_micros(held.1.saturating_sub(at)));
        if let Some(all) = traces
            .iter()
            .map(|t| t.holds(others, at))
            .collect::<Option<Vec<u64>>>()
        {
            moving.push(Duration::from_micros(all.into_iter().max().unwrap() - at));
        }
    }
    for (what, samples) in [("caught_up", &mut caught_up), ("moving_again", &mut moving)] {
        samples.sort();
        println!(
            "net/game/{name}_to_{what} over {} rounds: p50 {:?}, max {:?}",
            samples.len(),
            percentile(samples, 50),
            samples.last().copied().unwrap_or_default()
        );
    }
}

/// From an app restart (SIGKILL, then `clovece join --data DIR` at once),
/// and from a link restored after 8 s (SIGSTOP: the others close its
/// connections after 6 s without pings; SIGCONT), to caught-up.
fn restart_and_link(_: &mut Criterion) {
    interrupted(5, "app_restart", |victim, dir| {
        victim.kill();
        let at = now_micros();
        let back = Proc::start(dir, &["join", "--trace"], Hand::Bot, 20);
        (at, back)
    });
    interrupted(5, "link_restored_after_8s", |victim, _| {
        victim.signal("STOP");
        std::thread::sleep(Duration::from_secs(8));
        let at = now_micros();
        victim.signal("CONT");
        (at, victim)
    });
}

criterion_group!(
    benches,
    broadcast,
    restart,
    tap_to_applied,
    restart_and_link
);
criterion_main!(benches);
