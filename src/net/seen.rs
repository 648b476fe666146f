//! Bounds for the lists of phones seen nearby. Any device on the Wi-Fi can
//! announce made-up phones by mDNS or Bonjour, and addresses for them, for
//! nothing, and each phone a list holds is asked, dialled or drawn again and
//! again; so a list keeps at most [`MAX_PHONES`] phones and [`MAX_ADDRS`]
//! addresses for each.

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
    if list.len() < MAX_PHONES {
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
