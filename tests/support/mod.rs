//! Helpers for the network tests: nodes on loopback, each driven by its own
//! task, commanded through a channel.

#![allow(dead_code)]

pub mod qr;

use std::time::Duration;

use clovece::net::{Config, Event, Node};
use libp2p::identity::Keypair;
use libp2p::{Multiaddr, PeerId};
use tokio::sync::mpsc;

pub type Command = Box<dyn FnOnce(&mut Node) + Send>;

/// A node running in its own task.
pub struct Handle {
    pub id: PeerId,
    pub addrs: Vec<Multiaddr>,
    pub keypair: Keypair,
    commands: mpsc::UnboundedSender<Command>,
    pub events: mpsc::UnboundedReceiver<Event>,
    task: tokio::task::JoinHandle<()>,
}

/// Loopback only, no mDNS: nothing leaves the machine.
pub fn loopback() -> Config {
    Config {
        listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
        mdns: false,
        ..Config::default()
    }
}

/// Logs to the test's output with `RUST_LOG=…` set.
pub fn log() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
}

pub async fn spawn(keypair: Keypair) -> Handle {
    spawn_with(keypair, loopback()).await
}

pub async fn spawn_with(keypair: Keypair, config: Config) -> Handle {
    log();
    let mut node = Node::start(keypair.clone(), config)
        .await
        .expect("node starts");
    let id = node.peer_id();
    let addrs = node.listen_addrs();
    let (commands, mut inbox) = mpsc::unbounded_channel::<Command>();
    let (tx, events) = mpsc::unbounded_channel();
    let task = tokio::spawn(async move {
        loop {
            tokio::select! {
                command = inbox.recv() => match command {
                    Some(f) => f(&mut node),
                    None => return,
                },
                event = node.next() => {
                    if tx.send(event).is_err() {
                        return;
                    }
                }
            }
        }
    });
    Handle {
        id,
        addrs,
        keypair,
        commands,
        events,
        task,
    }
}

impl Handle {
    pub fn run(&self, f: impl FnOnce(&mut Node) + Send + 'static) {
        self.commands.send(Box::new(f)).expect("node task runs");
    }

    /// Lets this node know `other`'s addresses and keeps it connected.
    pub fn keep(&self, other: &Handle) {
        let (id, addrs) = (other.id, other.addrs.clone());
        self.run(move |n| {
            n.add_addrs(id, addrs);
            n.keep(id);
        });
    }

    /// Waits until every message to `to` is acknowledged.
    pub async fn acknowledged(&self, to: PeerId) {
        for _ in 0..200 {
            let (tx, rx) = tokio::sync::oneshot::channel();
            self.run(move |n| {
                let _ = tx.send(n.unacknowledged(to));
            });
            if rx.await.unwrap() == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("messages to {to} not acknowledged");
    }

    pub fn send(&self, to: PeerId, bytes: Vec<u8>) {
        self.run(move |n| n.send(to, bytes).expect("message within bounds"));
    }

    /// The next event matching `want`, failing after `secs` seconds.
    pub async fn wait<T>(&mut self, secs: u64, mut want: impl FnMut(Event) -> Option<T>) -> T {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let event = tokio::time::timeout_at(deadline, self.events.recv())
                .await
                .expect("event in time")
                .expect("node task runs");
            if let Some(t) = want(event) {
                return t;
            }
        }
    }

    /// The next `count` messages, with their senders.
    pub async fn messages(&mut self, count: usize, secs: u64) -> Vec<(PeerId, Vec<u8>)> {
        let mut got = Vec::with_capacity(count);
        while got.len() < count {
            let m = self
                .wait(secs, |e| match e {
                    Event::Message { from, bytes } => Some((from, bytes)),
                    _ => None,
                })
                .await;
            got.push(m);
        }
        got
    }

    /// Stops the node as a killed process would: its task and sockets go.
    pub fn kill(self) {
        self.task.abort();
    }
}
