//! A set of colours, for the log's bookkeeping of who is present, gone,
//! returning or has left.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::rules::Colour;

/// A set of colours, one bit per colour index.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Colours(u8);

/// A byte with bits set beyond the four colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0:#010b} is not a set of colours")]
pub struct NotColours(pub u8);

impl Colours {
    pub const NONE: Colours = Colours(0);

    pub fn one(colour: Colour) -> Colours {
        Colours(1 << colour.index())
    }

    pub fn contains(self, colour: Colour) -> bool {
        self.0 & (1 << colour.index()) != 0
    }

    pub fn with(self, colour: Colour) -> Colours {
        Colours(self.0 | 1 << colour.index())
    }

    pub fn without(self, colour: Colour) -> Colours {
        Colours(self.0 & !(1 << colour.index()))
    }

    pub fn union(self, other: Colours) -> Colours {
        Colours(self.0 | other.0)
    }

    pub fn intersection(self, other: Colours) -> Colours {
        Colours(self.0 & other.0)
    }

    pub fn difference(self, other: Colours) -> Colours {
        Colours(self.0 & !other.0)
    }

    pub fn is_subset(self, other: Colours) -> bool {
        self.0 & !other.0 == 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The colours in the set, clockwise from red.
    pub fn iter(self) -> impl Iterator<Item = Colour> + Clone {
        Colour::ALL.into_iter().filter(move |&c| self.contains(c))
    }
}

impl FromIterator<Colour> for Colours {
    fn from_iter<I: IntoIterator<Item = Colour>>(iter: I) -> Colours {
        iter.into_iter().fold(Colours::NONE, Colours::with)
    }
}

impl TryFrom<u8> for Colours {
    type Error = NotColours;
    fn try_from(bits: u8) -> Result<Colours, NotColours> {
        if bits > 0b1111 {
            return Err(NotColours(bits));
        }
        Ok(Colours(bits))
    }
}

impl From<Colours> for u8 {
    fn from(colours: Colours) -> u8 {
        colours.0
    }
}

impl fmt::Debug for Colours {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for Colours {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(Colour::name).collect();
        f.write_str(&names.join("+"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_of_colours_reject_stray_bits() {
        let set: Colours = [Colour::Red, Colour::Green].into_iter().collect();
        assert_eq!(u8::from(set), 0b0101);
        assert_eq!(set.to_string(), "red+green");
        assert_eq!(Colours::try_from(0b1_0000), Err(NotColours(0b1_0000)));
        assert!(Colours::one(Colour::Red).is_subset(set));
        assert_eq!(set.difference(Colours::one(Colour::Red)).len(), 1);
    }
}
