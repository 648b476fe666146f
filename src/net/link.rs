//! Ordered, acknowledged delivery over request-response: the sending half
//! ([`Outbox`]) and the receiving half ([`Inbox`]) of the channel to one
//! peer, as plain state machines (no I/O, no clock), so they are tested
//! without sockets.
//!
//! The sender keeps every message until it is acknowledged and has at most
//! one batch in flight, so batches arrive in order even across reconnects;
//! messages queued meanwhile go together in the next batch, which keeps the
//! number of round trips low when a move makes several messages at once.
//! A failed batch is sent again, so the receiver may see messages twice; it
//! skips those whose sequence number it has already passed.

use std::collections::VecDeque;

use serde_bytes::ByteBuf;

use super::wire::{Ack, Batch, MAX_BATCH_BYTES, MAX_BATCH_MESSAGES};

/// The most bytes of messages kept for a peer that does not acknowledge
/// them (it is gone, or slow). Past it the oldest are dropped: the game
/// log's own catch-up (`Status`/`Sync`) fetches whatever a peer missed, so
/// this bound only keeps a long absence from eating memory.
pub const MAX_QUEUED_BYTES: usize = 4 * 1024 * 1024;

/// The sending half of the channel to one peer.
#[derive(Debug)]
pub struct Outbox {
    session: u64,
    /// The sequence number of the next message pushed.
    next: u64,
    /// Unacknowledged messages; the front one's number is
    /// `next - queue.len()`.
    queue: VecDeque<Vec<u8>>,
    bytes: usize,
    in_flight: bool,
    dropped: u64,
}

impl Outbox {
    pub fn new(session: u64) -> Outbox {
        Outbox {
            session,
            next: 0,
            queue: VecDeque::new(),
            bytes: 0,
            in_flight: false,
            dropped: 0,
        }
    }

    /// Queues `message` (at most [`super::wire::MAX_MESSAGE`] bytes; the
    /// node checks that).
    pub fn push(&mut self, message: Vec<u8>) {
        self.bytes += message.len();
        self.queue.push_back(message);
        self.next += 1;
        while self.bytes > MAX_QUEUED_BYTES {
            let Some(oldest) = self.queue.pop_front() else {
                break;
            };
            self.bytes -= oldest.len();
            self.dropped += 1;
        }
    }

    fn front(&self) -> u64 {
        self.next - self.queue.len() as u64
    }

    /// The next batch to send, if nothing is in flight and something is
    /// queued; it counts as in flight until [`Outbox::acked`] or
    /// [`Outbox::failed`].
    pub fn batch(&mut self) -> Option<Batch> {
        if self.in_flight || self.queue.is_empty() {
            return None;
        }
        let mut messages = Vec::new();
        let mut size = 0;
        for message in self.queue.iter().take(MAX_BATCH_MESSAGES) {
            // Framing costs a few bytes a message on top of its length.
            let cost = message.len() + 8;
            if !messages.is_empty() && size + cost > MAX_BATCH_BYTES - 64 {
                break;
            }
            size += cost;
            messages.push(ByteBuf::from(message.clone()));
        }
        self.in_flight = true;
        Some(Batch {
            session: self.session,
            first: self.front(),
            messages,
        })
    }

    /// The peer acknowledged everything numbered below `ack.next`:
    /// whether that took anything off the queue.
    pub fn acked(&mut self, ack: Ack) -> bool {
        let next = ack.next.min(self.next);
        let before = self.queue.len();
        while self.front() < next {
            let Some(message) = self.queue.pop_front() else {
                break;
            };
            self.bytes -= message.len();
        }
        self.in_flight = false;
        self.queue.len() < before
    }

    /// The batch in flight was lost; it is sent again.
    pub fn failed(&mut self) {
        self.in_flight = false;
    }

    /// Gives up on every message waiting (counted as dropped): the
    /// receiver takes a gap in the numbers as it takes one left by
    /// [`MAX_QUEUED_BYTES`].
    pub fn drop_all(&mut self) {
        self.dropped += self.queue.len() as u64;
        self.queue.clear();
        self.bytes = 0;
    }

    /// Messages waiting for an acknowledgement.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Messages dropped because the peer did not take them in time.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

/// The receiving half of the channel from one peer.
#[derive(Debug, Default)]
pub struct Inbox {
    /// The sender's session and the next number expected in it.
    at: Option<(u64, u64)>,
}

impl Inbox {
    /// The acknowledgement of `batch` that takes none of it: the sender
    /// sends it again after a pause ([`Outbox::acked`] is false).
    pub fn refuse(&self, batch: &Batch) -> Ack {
        let next = match self.at {
            Some((session, next)) if session == batch.session => next,
            _ => batch.first,
        };
        Ack { next }
    }

    /// Takes `batch`: the messages not seen before, in order, and the
    /// acknowledgement to send back.
    pub fn accept(&mut self, batch: Batch) -> (Vec<Vec<u8>>, Ack) {
        // `Batch::decode` refuses numbers past `u64::MAX`; saturating keeps
        // a batch made otherwise from panicking here.
        let end = batch.first.saturating_add(batch.messages.len() as u64);
        let expected = match self.at {
            // A new session (the sender restarted, or this node did): its
            // first batch starts with its oldest unacknowledged message.
            Some((session, next)) if session == batch.session => next,
            _ => batch.first,
        };
        // A batch starting past `expected` means the sender dropped
        // messages it could not deliver; the log's catch-up repairs that.
        // (On a 32-bit phone a gap past `usize::MAX` still skips them all.)
        let skip = usize::try_from(expected.saturating_sub(batch.first)).unwrap_or(usize::MAX);
        let fresh: Vec<Vec<u8>> = batch
            .messages
            .into_iter()
            .skip(skip)
            .map(ByteBuf::into_vec)
            .collect();
        let next = end.max(expected);
        self.at = Some((batch.session, next));
        (fresh, Ack { next })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::wire::MAX_MESSAGE;
    use proptest::prelude::*;

    fn deliver(outbox: &mut Outbox, inbox: &mut Inbox) -> Vec<Vec<u8>> {
        let batch = outbox.batch().expect("a batch");
        let (fresh, ack) = inbox.accept(batch);
        outbox.acked(ack);
        fresh
    }

    #[test]
    fn one_batch_in_flight_carries_everything_queued() {
        let (mut outbox, mut inbox) = (Outbox::new(1), Inbox::default());
        outbox.push(vec![1]);
        let first = outbox.batch().unwrap();
        outbox.push(vec![2]);
        outbox.push(vec![3]);
        assert_eq!(outbox.batch(), None, "one batch in flight at a time");
        let (fresh, ack) = inbox.accept(first);
        assert_eq!(fresh, vec![vec![1]]);
        outbox.acked(ack);
        assert_eq!(deliver(&mut outbox, &mut inbox), vec![vec![2], vec![3]]);
        assert!(outbox.is_empty());
    }

    #[test]
    fn lost_batch_is_resent_and_not_delivered_twice() {
        let (mut outbox, mut inbox) = (Outbox::new(1), Inbox::default());
        outbox.push(vec![1]);
        outbox.push(vec![2]);
        let batch = outbox.batch().unwrap();
        // Delivered, but the acknowledgement is lost.
        let (fresh, _) = inbox.accept(batch);
        assert_eq!(fresh.len(), 2);
        outbox.failed();
        outbox.push(vec![3]);
        assert_eq!(deliver(&mut outbox, &mut inbox), vec![vec![3]]);
        assert!(outbox.is_empty());
    }

    #[test]
    fn restarted_sender_starts_a_new_session() {
        let mut inbox = Inbox::default();
        let mut old = Outbox::new(1);
        for i in 0..5 {
            old.push(vec![i]);
        }
        deliver(&mut old, &mut inbox);
        let mut new = Outbox::new(2);
        new.push(vec![9]);
        assert_eq!(deliver(&mut new, &mut inbox), vec![vec![9]]);
    }

    #[test]
    fn restarted_receiver_takes_the_oldest_unacknowledged_message_first() {
        let mut outbox = Outbox::new(1);
        let mut inbox = Inbox::default();
        outbox.push(vec![1]);
        deliver(&mut outbox, &mut inbox);
        outbox.push(vec![2]);
        let _lost = outbox.batch().unwrap();
        outbox.failed();
        let mut restarted = Inbox::default();
        assert_eq!(deliver(&mut outbox, &mut restarted), vec![vec![2]]);
    }

    #[test]
    fn outbox_drops_the_oldest_past_its_bound() {
        let mut outbox = Outbox::new(1);
        let fit = MAX_QUEUED_BYTES / MAX_MESSAGE;
        for _ in 0..fit + 2 {
            outbox.push(vec![0u8; MAX_MESSAGE]);
        }
        assert_eq!(outbox.len(), fit);
        assert_eq!(outbox.dropped(), 2);
        let batch = outbox.batch().unwrap();
        assert_eq!(batch.first, 2);
        // A receiver that had seen message 0 jumps over the lost ones.
        let mut inbox = Inbox::default();
        inbox.accept(Batch {
            session: 1,
            first: 0,
            messages: vec![ByteBuf::from(vec![0u8])],
        });
        let count = batch.messages.len() as u64;
        let (fresh, ack) = inbox.accept(batch);
        assert_eq!(fresh.len() as u64, count);
        assert_eq!(ack.next, 2 + count);
    }

    #[test]
    fn messages_given_up_on_leave_a_gap_the_receiver_jumps() {
        let (mut outbox, mut inbox) = (Outbox::new(1), Inbox::default());
        outbox.push(vec![1]);
        assert_eq!(deliver(&mut outbox, &mut inbox), vec![vec![1]]);
        outbox.push(vec![2]);
        outbox.push(vec![3]);
        outbox.drop_all();
        assert!(outbox.is_empty());
        assert_eq!(outbox.dropped(), 2);
        assert_eq!(outbox.batch(), None, "nothing left to send");
        // Numbering goes on after the messages given up on.
        outbox.push(vec![4]);
        let batch = outbox.batch().unwrap();
        assert_eq!(batch.first, 3);
        let (fresh, ack) = inbox.accept(batch);
        assert_eq!(fresh, vec![vec![4]]);
        outbox.acked(ack);
        assert!(outbox.is_empty());
    }

    #[test]
    fn batches_respect_the_wire_bounds() {
        let mut outbox = Outbox::new(1);
        for _ in 0..2 * MAX_BATCH_MESSAGES {
            outbox.push(vec![0; 10]);
        }
        assert_eq!(outbox.batch().unwrap().messages.len(), MAX_BATCH_MESSAGES);
        let mut outbox = Outbox::new(1);
        for _ in 0..8 {
            outbox.push(vec![0; MAX_MESSAGE]);
        }
        let batch = outbox.batch().unwrap();
        let bytes = postcard::to_stdvec(&batch).unwrap();
        assert!(bytes.len() <= MAX_BATCH_BYTES);
        assert_eq!(Batch::decode(&bytes), Ok(batch));
    }

    #[test]
    fn a_batch_numbered_up_to_the_last_sequence_number_does_not_overflow() {
        let mut inbox = Inbox::default();
        let batch = Batch {
            session: 1,
            first: u64::MAX,
            messages: vec![ByteBuf::from(vec![1])],
        };
        let (fresh, ack) = inbox.accept(batch);
        assert_eq!(fresh, vec![vec![1]]);
        assert_eq!(ack.next, u64::MAX);
    }

    /// What becomes of a batch sent.
    #[derive(Debug, Clone, Copy)]
    enum Fate {
        Delivered,
        /// Lost on the way: the receiver never sees it.
        Lost,
        /// The receiver takes it but its acknowledgement is lost, so the
        /// sender sends it again: the case that makes duplicates.
        AckLost,
    }

    fn fate() -> impl Strategy<Value = Fate> {
        prop_oneof![Just(Fate::Delivered), Just(Fate::Lost), Just(Fate::AckLost)]
    }

    proptest! {
        /// Whatever is lost, every message arrives once, in order.
        #[test]
        fn channel_delivers_in_order_exactly_once(
            steps in proptest::collection::vec((0u8..4, fate()), 1..200)
        ) {
            let (mut outbox, mut inbox) = (Outbox::new(5), Inbox::default());
            let mut sent = 0u32;
            let mut got = Vec::new();
            for (pushes, fate) in steps {
                for _ in 0..pushes {
                    outbox.push(sent.to_le_bytes().to_vec());
                    sent += 1;
                }
                if let Some(batch) = outbox.batch() {
                    match fate {
                        Fate::Delivered => {
                            let (fresh, ack) = inbox.accept(batch);
                            got.extend(fresh);
                            outbox.acked(ack);
                        }
                        Fate::Lost => outbox.failed(),
                        Fate::AckLost => {
                            got.extend(inbox.accept(batch).0);
                            outbox.failed();
                        }
                    }
                }
            }
            while let Some(batch) = outbox.batch() {
                let (fresh, ack) = inbox.accept(batch);
                got.extend(fresh);
                outbox.acked(ack);
            }
            let want: Vec<Vec<u8>> = (0..sent).map(|i| i.to_le_bytes().to_vec()).collect();
            prop_assert_eq!(got, want);
        }

        /// A peer may number its batches anyhow: the inbox never panics,
        /// never hands on more than it was given, and never acknowledges
        /// less than it did before in the same session.
        #[test]
        fn inbox_takes_any_numbering(
            batches in proptest::collection::vec(
                (0u64..3, prop_oneof![any::<u64>(), 0u64..10, (u64::MAX - 10)..=u64::MAX], 0usize..4),
                1..30,
            )
        ) {
            let mut inbox = Inbox::default();
            let mut last: Option<(u64, u64)> = None;
            for (session, first, len) in batches {
                let batch = Batch { session, first, messages: vec![ByteBuf::from(vec![0]); len] };
                let (fresh, ack) = inbox.accept(batch);
                prop_assert!(fresh.len() <= len);
                if let Some((s, next)) = last
                    && s == session
                {
                    prop_assert!(ack.next >= next);
                }
                last = Some((session, ack.next));
            }
        }
    }
}
