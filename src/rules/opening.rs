//! Choosing who plays first, before any position exists.

use super::RuleSet;
use super::board::{Colour, Die, Seats};
use super::classic::{HouseRules, TRIES};

/// How the first player is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FirstPlayer {
    /// Red begins (the HoyHop rules for a local game).
    Red,
    /// A draw from the game's shared randomness (HoyHop rooms).
    #[default]
    Random,
    /// Every colour rolls once; the highest roll begins, tied colours roll
    /// again among themselves (the Matfyz text).
    HighestRoll,
    /// Colours roll in turn, up to three times each, until one rolls a six
    /// (the Croatian text).
    FirstSix,
}

impl FirstPlayer {
    /// How the text of `rules` chooses the first player in a room: the
    /// Croatian preset by the first six, the Matfyz rules by the highest
    /// roll, the classic rules by a draw ("who goes first is drawn at
    /// random" in HoyHop's rooms). A room's host may choose another.
    pub fn for_room(rules: RuleSet) -> FirstPlayer {
        FirstPlayer::own(rules).unwrap_or(FirstPlayer::Random)
    }

    /// The same for a game on one device, where the classic rules let red
    /// begin ("On HoyHop, red goes first").
    pub fn for_local_game(rules: RuleSet) -> FirstPlayer {
        FirstPlayer::own(rules).unwrap_or(FirstPlayer::Red)
    }

    /// The way a rule set's own text names, if it names one.
    fn own(rules: RuleSet) -> Option<FirstPlayer> {
        match rules {
            RuleSet::Matfyz => Some(FirstPlayer::HighestRoll),
            RuleSet::Classic(house) if house == HouseRules::CROATIAN => Some(FirstPlayer::FirstSix),
            RuleSet::Classic(_) => None,
        }
    }
}

/// What the choice of the first player waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningNext {
    /// `colour` rolls the die.
    Roll(Colour),
    /// A uniform draw among the seated colours: see [`Opening::draw`].
    Draw,
    /// `colour` plays first.
    Decided(Colour),
}

/// The choice of the first player as a small state machine fed with dice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opening {
    rule: FirstPlayer,
    seats: Seats,
    state: State,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Decided(Colour),
    Draw,
    /// Highest roll: the colours still contending (bit per colour), the one
    /// to roll now, the best roll so far with the colours that made it,
    /// and the face the contenders tied at while none of them has rolled
    /// again (0 in the first round, and once one has).
    Highest {
        contenders: u8,
        roller: Colour,
        best: u8,
        leaders: u8,
        tie: u8,
    },
    /// First six: who rolls and which of their three tries this is.
    FirstSix {
        roller: Colour,
        attempt: u8,
    },
}

/// A roll or draw that the opening does not wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the opening does not wait for this")]
pub struct NotExpected;

impl Opening {
    pub fn new(rule: FirstPlayer, seats: Seats) -> Opening {
        let first = Colour::Red;
        let state = match rule {
            FirstPlayer::Red => State::Decided(first),
            FirstPlayer::Random => State::Draw,
            FirstPlayer::HighestRoll => State::Highest {
                contenders: mask(seats.iter()),
                roller: first,
                best: 0,
                leaders: 0,
                tie: 0,
            },
            FirstPlayer::FirstSix => State::FirstSix {
                roller: first,
                attempt: 1,
            },
        };
        Opening { rule, seats, state }
    }

    pub fn rule(&self) -> FirstPlayer {
        self.rule
    }

    pub fn next(&self) -> OpeningNext {
        match self.state {
            State::Decided(c) => OpeningNext::Decided(c),
            State::Draw => OpeningNext::Draw,
            State::Highest { roller, .. } | State::FirstSix { roller, .. } => {
                OpeningNext::Roll(roller)
            }
        }
    }

    /// The face the highest rolls just tied at, whose colours now roll
    /// again among themselves: until the first of them has.
    pub fn tie(&self) -> Option<Die> {
        match self.state {
            State::Highest { tie, .. } => Die::new(tie),
            _ => None,
        }
    }

    /// Feeds the roll of the colour that [`Opening::next`] named.
    pub fn roll(&mut self, die: Die) -> Result<OpeningNext, NotExpected> {
        self.state = match self.state {
            State::Highest {
                contenders,
                roller,
                best,
                leaders,
                tie: _,
            } => {
                let bit = 1u8 << roller.index();
                let (best, leaders) = match die.get() {
                    r if r > best => (r, bit),
                    r if r == best => (best, leaders | bit),
                    _ => (best, leaders),
                };
                let later = contenders & !((bit << 1) - 1);
                if later != 0 {
                    State::Highest {
                        contenders,
                        roller: Colour::from_index(later.trailing_zeros() as usize),
                        best,
                        leaders,
                        tie: 0,
                    }
                } else if leaders.count_ones() == 1 {
                    State::Decided(Colour::from_index(leaders.trailing_zeros() as usize))
                } else {
                    State::Highest {
                        contenders: leaders,
                        roller: Colour::from_index(leaders.trailing_zeros() as usize),
                        best: 0,
                        leaders: 0,
                        tie: best,
                    }
                }
            }
            State::FirstSix { roller, attempt } => {
                if die.is_six() {
                    State::Decided(roller)
                } else if attempt < TRIES {
                    State::FirstSix {
                        roller,
                        attempt: attempt + 1,
                    }
                } else {
                    State::FirstSix {
                        roller: self.seats.after(roller),
                        attempt: 1,
                    }
                }
            }
            State::Decided(_) | State::Draw => return Err(NotExpected),
        };
        Ok(self.next())
    }

    /// Feeds a uniform random number for [`FirstPlayer::Random`]; the first
    /// player is the seated colour number `value % players`.
    pub fn draw(&mut self, value: u64) -> Result<Colour, NotExpected> {
        if self.state != State::Draw {
            return Err(NotExpected);
        }
        let index = (value % self.seats.len() as u64) as usize;
        let colour = self.seats.iter().nth(index).ok_or(NotExpected)?;
        self.state = State::Decided(colour);
        Ok(colour)
    }
}

fn mask(colours: impl Iterator<Item = Colour>) -> u8 {
    colours.fold(0, |m, c| m | 1 << c.index())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dice(rolls: &[u8]) -> impl Iterator<Item = Die> + '_ {
        rolls.iter().map(|&r| Die::new(r).unwrap())
    }

    #[test]
    fn each_rule_set_begins_its_own_way() {
        let classic = RuleSet::Classic(HouseRules::default());
        let house = RuleSet::Classic(HouseRules {
            compulsory_capture: true,
            ..HouseRules::default()
        });
        let croatian = RuleSet::Classic(HouseRules::CROATIAN);
        for (rules, room, local) in [
            (classic, FirstPlayer::Random, FirstPlayer::Red),
            (house, FirstPlayer::Random, FirstPlayer::Red),
            (croatian, FirstPlayer::FirstSix, FirstPlayer::FirstSix),
            (
                RuleSet::Matfyz,
                FirstPlayer::HighestRoll,
                FirstPlayer::HighestRoll,
            ),
        ] {
            assert_eq!(FirstPlayer::for_room(rules), room, "{rules:?}");
            assert_eq!(FirstPlayer::for_local_game(rules), local, "{rules:?}");
        }
    }

    #[test]
    fn red_first_needs_no_roll() {
        let o = Opening::new(FirstPlayer::Red, Seats::for_players(3).unwrap());
        assert_eq!(o.next(), OpeningNext::Decided(Colour::Red));
    }

    #[test]
    fn highest_single_roll_begins_and_ties_roll_again() {
        let mut o = Opening::new(FirstPlayer::HighestRoll, Seats::for_players(4).unwrap());
        let mut last = o.next();
        // Red 5, blue 6, green 6, yellow 2: blue and green roll again.
        for d in dice(&[5, 6, 6, 2]) {
            assert_eq!(o.tie(), None, "no tie yet");
            last = o.roll(d).unwrap();
        }
        assert_eq!(last, OpeningNext::Roll(Colour::Blue));
        assert_eq!(o.tie(), Some(Die::SIX), "a tie at six, said");
        assert_eq!(
            o.roll(Die::new(3).unwrap()),
            Ok(OpeningNext::Roll(Colour::Green))
        );
        assert_eq!(o.tie(), None, "said until blue rolled again");
        assert_eq!(
            o.roll(Die::new(4).unwrap()),
            Ok(OpeningNext::Decided(Colour::Green))
        );
        assert_eq!(o.roll(Die::SIX), Err(NotExpected));
    }

    #[test]
    fn a_tie_of_three_is_said_until_the_first_of_them_rolls_and_may_come_again() {
        let mut o = Opening::new(FirstPlayer::HighestRoll, Seats::for_players(4).unwrap());
        // Red 5, blue 2, green 5, yellow 5: red, green and yellow again.
        for d in dice(&[5, 2, 5, 5]) {
            o.roll(d).unwrap();
        }
        assert_eq!(o.tie(), Die::new(5));
        assert_eq!(o.next(), OpeningNext::Roll(Colour::Red));
        // Red 3, green 3, yellow 1: red and green tie again, at 3.
        for d in dice(&[3, 3, 1]) {
            assert_ne!(o.tie(), Die::new(3));
            o.roll(d).unwrap();
        }
        assert_eq!(o.tie(), Die::new(3));
        assert_eq!(o.roll(Die::SIX), Ok(OpeningNext::Roll(Colour::Green)));
        assert_eq!(o.tie(), None);
    }

    #[test]
    fn first_six_in_rounds_of_three_tries() {
        let seats = Seats::for_players(2).unwrap();
        let mut o = Opening::new(FirstPlayer::FirstSix, seats);
        for d in dice(&[1, 2, 3]) {
            o.roll(d).unwrap();
        }
        assert_eq!(o.next(), OpeningNext::Roll(Colour::Green));
        o.roll(Die::new(5).unwrap()).unwrap();
        assert_eq!(o.roll(Die::SIX), Ok(OpeningNext::Decided(Colour::Green)));
    }

    #[test]
    fn random_draw_picks_a_seated_colour() {
        let seats = Seats::for_players(2).unwrap();
        let mut o = Opening::new(FirstPlayer::Random, seats);
        assert_eq!(o.next(), OpeningNext::Draw);
        assert_eq!(o.draw(3), Ok(Colour::Green));
        assert_eq!(o.draw(3), Err(NotExpected));
    }
}
