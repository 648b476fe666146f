//! Flood protection: how much a peer may send before it counts as flooding
//! and is disconnected. An honest peer has one batch in flight at a time
//! and sends a few hundred bytes a move; even a full catch-up of a long game
//! is a few hundred kilobytes. The budgets below are far above that and far
//! below what would keep a phone busy. A stranger (a peer the application
//! does not keep: a nearby list asking, a phone asking for a seat, an
//! invitation) says a few things a second, and identities cost nothing,
//! so it has a much smaller budget of messages too.

use std::time::Instant;

/// How much one peer may send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Messages a second, and in one burst.
    pub messages_per_sec: u64,
    pub messages_burst: u64,
    /// Bytes a second, and in one burst.
    pub bytes_per_sec: u64,
    pub bytes_burst: u64,
    /// Messages a second, and in one burst, from a peer not kept.
    pub stranger_messages_per_sec: u64,
    pub stranger_messages_burst: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            messages_per_sec: 20_000,
            messages_burst: 40_000,
            bytes_per_sec: 4 * 1024 * 1024,
            bytes_burst: 16 * 1024 * 1024,
            // A nearby list asks twice a second. The burst also takes a
            // player's first batches (256 messages each) to a phone that
            // restarted and has not yet read who its game's players are.
            stranger_messages_per_sec: 200,
            stranger_messages_burst: 2_000,
        }
    }
}

/// A token bucket: `capacity` tokens, refilled at `per_sec`.
#[derive(Clone, Copy, Debug)]
pub struct Bucket {
    tokens: u64,
    capacity: u64,
    per_sec: u64,
    last: Instant,
}

impl Bucket {
    pub fn new(capacity: u64, per_sec: u64, now: Instant) -> Bucket {
        Bucket {
            tokens: capacity,
            capacity,
            per_sec,
            last: now,
        }
    }

    /// Takes `n` tokens if there are that many, counting those refilled
    /// since.
    pub fn take(&mut self, n: u64, now: Instant) -> bool {
        let refill = self.refill(now);
        if refill > 0 {
            self.tokens = (u128::from(self.tokens) + refill).min(u128::from(self.capacity)) as u64;
            self.last = now;
        }
        match self.tokens.checked_sub(n) {
            Some(left) => {
                self.tokens = left;
                true
            }
            None => false,
        }
    }

    /// Whether every token is back by `now`: the bucket is then as good as
    /// a new one, and need not be kept. (Asking refills nothing, so that
    /// asking often loses no fraction of a token.)
    pub fn is_full(&self, now: Instant) -> bool {
        u128::from(self.tokens) + self.refill(now) >= u128::from(self.capacity)
    }

    /// The whole tokens come back since the last refill.
    fn refill(&self, now: Instant) -> u128 {
        let micros = now.saturating_duration_since(self.last).as_micros();
        micros * u128::from(self.per_sec) / 1_000_000
    }
}

/// One peer's budgets.
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    messages: Bucket,
    bytes: Bucket,
    /// Charged too while the peer is a stranger.
    stranger: Bucket,
}

/// What a flooding peer overran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Flood {
    #[error("more than {0} messages a second")]
    Messages(u64),
    #[error("more than {0} bytes a second")]
    Bytes(u64),
    /// Past a stranger's budget: not banned, as a player may still be a
    /// stranger for a moment (a phone that restarted, before it reads its
    /// game's players), but made to wait.
    #[error("more than {0} messages a second from a stranger")]
    Stranger(u64),
}

impl Guard {
    pub fn new(limits: Limits, now: Instant) -> Guard {
        Guard {
            messages: Bucket::new(limits.messages_burst, limits.messages_per_sec, now),
            bytes: Bucket::new(limits.bytes_burst, limits.bytes_per_sec, now),
            stranger: Bucket::new(
                limits.stranger_messages_burst,
                limits.stranger_messages_per_sec,
                now,
            ),
        }
    }

    /// Charges a batch of `messages` messages and `bytes` bytes (a batch
    /// counts as at least one message, so empty batches are not free) from
    /// a peer that is a `stranger` or not.
    pub fn charge(
        &mut self,
        messages: usize,
        bytes: usize,
        stranger: bool,
        now: Instant,
    ) -> Result<(), Flood> {
        let messages = messages.max(1) as u64;
        if !self.messages.take(messages, now) {
            return Err(Flood::Messages(self.messages.per_sec));
        }
        // Bytes before a stranger's budget: a stranger past it, whose
        // batches are refused but read, is banned for the bytes it sends.
        if !self.bytes.take(bytes as u64, now) {
            return Err(Flood::Bytes(self.bytes.per_sec));
        }
        if stranger && !self.stranger.take(messages, now) {
            return Err(Flood::Stranger(self.stranger.per_sec));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn steady_honest_traffic_is_never_a_flood() {
        let start = Instant::now();
        let mut guard = Guard::new(Limits::default(), start);
        // A fast game: a batch of 10 messages of 300 bytes every millisecond
        // for a minute.
        for ms in 0..60_000 {
            let now = start + Duration::from_millis(ms);
            assert_eq!(guard.charge(10, 3000, false, now), Ok(()), "at {ms} ms");
        }
    }

    #[test]
    fn flooding_with_messages_or_bytes_is_caught() {
        let now = Instant::now();
        let mut guard = Guard::new(Limits::default(), now);
        let caught = (0..).find_map(|_| guard.charge(256, 0, false, now).err());
        assert_eq!(caught, Some(Flood::Messages(20_000)));
        let mut guard = Guard::new(Limits::default(), now);
        let caught = (0..).find_map(|_| guard.charge(1, 256 * 1024, false, now).err());
        assert!(matches!(caught, Some(Flood::Bytes(_))));
    }

    #[test]
    fn budget_refills_with_time() {
        let now = Instant::now();
        let mut guard = Guard::new(Limits::default(), now);
        let limits = Limits::default();
        assert!(
            guard
                .charge(0, limits.bytes_burst as usize, false, now)
                .is_ok()
        );
        assert!(guard.charge(0, 1, false, now).is_err());
        let later = now + Duration::from_secs(1);
        assert!(
            guard
                .charge(0, limits.bytes_per_sec as usize, false, later)
                .is_ok()
        );
    }

    #[test]
    fn a_stranger_past_its_budget_is_still_charged_for_bytes() {
        let now = Instant::now();
        let limits = Limits::default();
        let mut guard = Guard::new(limits, now);
        // Past its budget of messages, its batches are refused but read.
        let past = (0..).find_map(|_| guard.charge(1, 0, true, now).err());
        assert_eq!(
            past,
            Some(Flood::Stranger(limits.stranger_messages_per_sec))
        );
        let refused = Err(Flood::Stranger(limits.stranger_messages_per_sec));
        let caught = (0..100)
            .map(|_| guard.charge(4, 4 * 64 * 1024, true, now))
            .find(|charged| *charged != refused);
        assert_eq!(caught, Some(Err(Flood::Bytes(limits.bytes_per_sec))));
    }

    #[test]
    fn a_stranger_floods_far_sooner_and_a_nearby_list_never_does() {
        let start = Instant::now();
        let limits = Limits::default();
        let mut guard = Guard::new(limits, start);
        let caught = (0..).find_map(|_| guard.charge(256, 0, true, start).err());
        assert_eq!(
            caught,
            Some(Flood::Stranger(limits.stranger_messages_per_sec))
        );
        // The same batches from a peer kept: within its budget.
        let mut guard = Guard::new(limits, start);
        for _ in 0..50 {
            assert_eq!(guard.charge(256, 0, false, start), Ok(()));
        }
        // A stranger asking twenty times a second (a nearby list asks
        // twice), with twenty more every five seconds, for a minute.
        let mut guard = Guard::new(limits, start);
        for ms in (0..60_000).step_by(50) {
            let now = start + Duration::from_millis(ms);
            assert_eq!(guard.charge(1, 40, true, now), Ok(()), "at {ms} ms");
            if ms % 5_000 == 0 {
                assert_eq!(guard.charge(20, 4_000, true, now), Ok(()), "at {ms} ms");
            }
        }
    }
}
