//! Flood protection: how much a peer may send before it counts as flooding
//! and is disconnected. An honest peer has one batch in flight at a time
//! and sends a few hundred bytes a move; even a full catch-up of a long game
//! is a few hundred kilobytes. The budgets below are far above that and far
//! below what would keep a phone busy.

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
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            messages_per_sec: 20_000,
            messages_burst: 40_000,
            bytes_per_sec: 4 * 1024 * 1024,
            bytes_burst: 16 * 1024 * 1024,
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
        let micros = now.saturating_duration_since(self.last).as_micros();
        let refill = micros * u128::from(self.per_sec) / 1_000_000;
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
}

/// One peer's budgets.
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    messages: Bucket,
    bytes: Bucket,
}

/// What a flooding peer overran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Flood {
    #[error("more than {0} messages a second")]
    Messages(u64),
    #[error("more than {0} bytes a second")]
    Bytes(u64),
}

impl Guard {
    pub fn new(limits: Limits, now: Instant) -> Guard {
        Guard {
            messages: Bucket::new(limits.messages_burst, limits.messages_per_sec, now),
            bytes: Bucket::new(limits.bytes_burst, limits.bytes_per_sec, now),
        }
    }

    /// Charges a batch of `messages` messages and `bytes` bytes (a batch
    /// counts as at least one message, so empty batches are not free).
    pub fn charge(&mut self, messages: usize, bytes: usize, now: Instant) -> Result<(), Flood> {
        if !self.messages.take(messages.max(1) as u64, now) {
            return Err(Flood::Messages(self.messages.per_sec));
        }
        if !self.bytes.take(bytes as u64, now) {
            return Err(Flood::Bytes(self.bytes.per_sec));
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
            assert_eq!(guard.charge(10, 3000, now), Ok(()), "at {ms} ms");
        }
    }

    #[test]
    fn flooding_with_messages_or_bytes_is_caught() {
        let now = Instant::now();
        let mut guard = Guard::new(Limits::default(), now);
        let caught = (0..).find_map(|_| guard.charge(256, 0, now).err());
        assert_eq!(caught, Some(Flood::Messages(20_000)));
        let mut guard = Guard::new(Limits::default(), now);
        let caught = (0..).find_map(|_| guard.charge(1, 256 * 1024, now).err());
        assert!(matches!(caught, Some(Flood::Bytes(_))));
    }

    #[test]
    fn budget_refills_with_time() {
        let now = Instant::now();
        let mut guard = Guard::new(Limits::default(), now);
        let limits = Limits::default();
        assert!(guard.charge(0, limits.bytes_burst as usize, now).is_ok());
        assert!(guard.charge(0, 1, now).is_err());
        let later = now + Duration::from_secs(1);
        assert!(
            guard
                .charge(0, limits.bytes_per_sec as usize, later)
                .is_ok()
        );
    }
}
