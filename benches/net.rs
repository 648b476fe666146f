//! The byte channel's latency over real libp2p connections on loopback:
//! one node sends a message to three others (a move broadcast in a game of
//! four), timed until all three have taken it. Criterion measures the mean;
//! the p50 and p99 over 1,000 broadcasts are printed after it
//! (docs/performance.md, "Networking").

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

criterion_group!(benches, broadcast, restart);
criterion_main!(benches);
