//! Bounds for the lists of phones seen nearby. Any device on the Wi-Fi can
//! announce made-up phones by mDNS or Bonjour, and addresses for them, for
//! nothing, and each phone a list holds is asked, dialled or drawn again and
//! again; so a list keeps at most [`MAX_PHONES`] phones and [`MAX_ADDRS`]
//! addresses for each, and the mDNS discovery's own list at most
//! [`MAX_SIGHTINGS`] (phone, address) pairs.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

/// Phones a list keeps: a room meets a few dozen real phones.
pub const MAX_PHONES: usize = 64;

/// Addresses kept for one phone (its interfaces, IPv4 and IPv6, and the
/// ones it had before a network change).
pub const MAX_ADDRS: usize = 16;

/// The list is full of phones that are kept.
#[derive(Debug, PartialEq, Eq)]
pub struct Full;

/// Makes room in `list`, oldest first, for one more phone: when it is full,
/// the oldest one that is not `kept` is taken out and given back (so that
/// whatever runs for it can be stopped). `Full` when every phone is kept:
/// the new one is left out until it is seen again. Real phones answer or
/// are chosen within a second or two and are kept from then on, so a flood
/// of made-up ones passes through the list without pushing them out.
pub fn make_room<T>(list: &mut Vec<T>, kept: impl Fn(&T) -> bool) -> Result<Option<T>, Full> {
    make_room_within(MAX_PHONES, list, kept)
}

/// [`make_room`] in a list of at most `max` phones.
pub fn make_room_within<T>(
    max: usize,
    list: &mut Vec<T>,
    kept: impl Fn(&T) -> bool,
) -> Result<Option<T>, Full> {
    if list.len() < max {
        return Ok(None);
    }
    match list.iter().position(|phone| !kept(phone)) {
        Some(oldest) => Ok(Some(list.remove(oldest))),
        None => Err(Full),
    }
}

/// Takes `addr` into `addrs`, oldest first, as the newest: whether it is
/// new there. Past [`MAX_ADDRS`] the oldest goes.
pub fn learn<A: PartialEq>(addrs: &mut Vec<A>, addr: A) -> bool {
    let before = addrs.len();
    addrs.retain(|a| *a != addr);
    let new = addrs.len() == before;
    addrs.push(addr);
    if addrs.len() > MAX_ADDRS {
        addrs.remove(0);
    }
    new
}

/// (Phone, address) pairs the mDNS discovery may hold. libp2p-mdns keeps
/// each pair an announcement names for as long as the announcement asks,
/// and looks through all of them for every pair it hears, so made-up
/// announcements would cost memory and time without end; real phones
/// account for a few dozen, with a few addresses each.
pub const MAX_SIGHTINGS: usize = 256;

/// The phones to drop from a discovery's list of (phone, address) pairs,
/// given oldest first with one phone per pair, once it holds more than
/// [`MAX_SIGHTINGS`]: the oldest phones that are not `kept`, or have more
/// than [`MAX_ADDRS`] pairs (kept or not: a phone announcing address after
/// address), until at most half the bound is left (so that dropping is
/// rare, and cheap per pair heard). A real phone answers the next query,
/// within a second, so one dropped under a flood is found again.
pub fn overflow<P: Copy + Eq + Hash>(pairs: &[P], kept: impl Fn(&P) -> bool) -> Vec<P> {
    if pairs.len() <= MAX_SIGHTINGS {
        return Vec::new();
    }
    let mut count: HashMap<P, usize> = HashMap::new();
    for &phone in pairs {
        *count.entry(phone).or_default() += 1;
    }
    let mut left = pairs.len();
    let mut seen = HashSet::new();
    let mut dropped = Vec::new();
    for phone in pairs {
        if left <= MAX_SIGHTINGS / 2 {
            break;
        }
        if seen.insert(phone) && (!kept(phone) || count[phone] > MAX_ADDRS) {
            left -= count[phone];
            dropped.push(*phone);
        }
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_phones_passes_through_without_pushing_out_the_kept_ones() {
        let kept = |&phone: &usize| phone % 10 == 0;
        let mut list: Vec<usize> = Vec::new();
        for phone in 0..10_000 {
            if make_room(&mut list, kept).is_ok() {
                list.push(phone);
            }
            assert!(list.len() <= MAX_PHONES);
        }
        // Kept phones are never taken out: in the end only they are left.
        let kept_ones: Vec<usize> = (0..MAX_PHONES).map(|i| i * 10).collect();
        assert_eq!(list, kept_ones);
        assert_eq!(make_room(&mut list, kept), Err(Full));
        assert_eq!(list, kept_ones);

        let mut list: Vec<usize> = (0..MAX_PHONES).collect();
        assert_eq!(make_room(&mut list, |&p| p < 3), Ok(Some(3)));
        assert_eq!(list.len(), MAX_PHONES - 1);
        let mut short = vec![1, 2];
        assert_eq!(make_room(&mut short, |_| false), Ok(None));
        assert_eq!(short, [1, 2]);
    }

    #[test]
    fn the_discovery_list_drops_the_oldest_phones_not_kept_down_to_half() {
        // Phone 0 (kept) and phone 1 have two addresses each, among the oldest.
        let mut pairs = vec![0, 1, 0, 1];
        pairs.extend(2..MAX_SIGHTINGS as u32 - 2);
        assert_eq!(pairs.len(), MAX_SIGHTINGS);
        assert!(overflow(&pairs, |_| false).is_empty());

        pairs.push(9_999);
        let dropped = overflow(&pairs, |&p| p == 0);
        // Phone 1 and the oldest others go, until half the bound is left:
        // the kept phone's two pairs and the newest ones stay.
        let left = pairs.iter().filter(|p| !dropped.contains(p)).count();
        assert_eq!(left, MAX_SIGHTINGS / 2);
        assert_eq!(dropped[0], 1);
        assert!(!dropped.contains(&0));
        assert!(!dropped.contains(&9_999));
        assert!(dropped.windows(2).all(|w| w[0] < w[1]), "oldest first");

        // When (nearly) all are kept, only the rest can go.
        assert_eq!(overflow(&pairs, |&p| p != 5), [5]);
        // A kept phone with more addresses than a phone has goes too.
        pairs.extend([7; MAX_ADDRS]);
        assert_eq!(overflow(&pairs, |&p| p != 5), [5, 7]);
    }

    #[test]
    fn a_phone_keeps_its_newest_addresses() {
        let mut addrs = Vec::new();
        for addr in 0..20 {
            assert!(learn(&mut addrs, addr));
        }
        assert_eq!(addrs, (4..20).collect::<Vec<_>>());
        // One seen again becomes the newest.
        assert!(!learn(&mut addrs, 10));
        assert_eq!(addrs.len(), MAX_ADDRS);
        assert_eq!(addrs.last(), Some(&10));
    }
}
