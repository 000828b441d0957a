//! What `awf run` shows while a run works, and when it ends.
//!
//! `LiveView` watches the run (`records::RunObserver`): each event is folded into a `Board`
//! (board.rs: what each agent is doing, since when, what it used, what it said last on stderr),
//! and the change is drawn — on a terminal as a block redrawn in place, a header line with the
//! run's time and totals over a row per agent, with `wf.log` lines scrolling above it (tty.rs,
//! through indicatif); anywhere else as one plain line per change, never cut (plain.rs). With
//! `verbose`, each agent's stderr lines and messages scroll above the block too. `summary.rs`
//! writes the closing summary from the board.

pub mod board;
mod plain;
mod question;
pub mod summary;
#[cfg(test)]
mod test_events;
mod tty;

use std::sync::Mutex;

use crate::records::{Event, RunObserver};
use board::{AgentRow, Board, Change};

/// How the view looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewOptions {
    /// stderr is a terminal: draw the live block.
    pub terminal: bool,
    pub color: bool,
    /// Also show each agent's stderr and what it says.
    pub verbose: bool,
}

/// The live view of one run.
pub struct LiveView {
    board: Mutex<Board>,
    screen: Screen,
    verbose: bool,
}

enum Screen {
    Terminal(tty::TtyScreen),
    Plain(plain::PlainScreen),
}

impl Screen {
    fn row(&self, index: usize, row: &AgentRow) {
        match self {
            Screen::Terminal(screen) => screen.row(index, row),
            Screen::Plain(screen) => screen.row(index, row),
        }
    }

    fn line(&self, line: &str) {
        match self {
            Screen::Terminal(screen) => screen.line(line),
            Screen::Plain(screen) => screen.line(line),
        }
    }

    /// The run's totals changed (a terminal shows them above the rows; plain lines do not).
    fn totals(&self, board: &Board) {
        if let Screen::Terminal(screen) = self {
            screen.header(board);
        }
    }
}

impl LiveView {
    pub fn new(options: ViewOptions) -> LiveView {
        let screen = if options.terminal {
            Screen::Terminal(tty::TtyScreen::new(options.color))
        } else {
            Screen::Plain(plain::PlainScreen::default())
        };
        LiveView {
            board: Mutex::new(Board::default()),
            screen,
            verbose: options.verbose,
        }
    }

    /// Takes the live block off the screen (the summary goes where it was) and gives the
    /// board as the run left it.
    pub fn finish(&self) -> Board {
        if let Screen::Terminal(screen) = &self.screen {
            screen.clear();
        }
        std::mem::take(&mut *self.board.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl RunObserver for LiveView {
    fn recorded(&self, event: &Event) {
        let mut board = self.board.lock().unwrap_or_else(|e| e.into_inner());
        match board.apply(event) {
            Change::Row(index) => {
                self.screen.row(index, &board.agents[index]);
                self.screen.totals(&board);
            }
            Change::Line(line) => self.screen.line(&line),
            Change::None | Change::Ended => {}
        }
        if let (true, Event::AgentMessage { agent, text, .. }) = (self.verbose, event) {
            for line in text.lines() {
                self.screen.line(&format!("{agent} says: {line}"));
            }
        }
    }

    fn agent_stderr(&self, agent: &str, _turn: &str, line: &str) {
        self.board
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .stderr_line(agent, line);
        if self.verbose {
            self.screen.line(&format!("{agent} stderr: {line}"));
        }
    }
}

/// How much of a long text a row has room for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Room {
    /// A terminal row: a shell command or an ending cut to fit, with an ellipsis.
    Row,
    /// A line written to a file or a pipe: all of it, on one line.
    Line,
}

/// What an agent is doing, in a few words.
pub(crate) fn doing_text(row: &AgentRow, room: Room) -> String {
    use board::Doing;
    let turn = row.turn.as_deref().unwrap_or("");
    let fit = |text: &str, max: usize| match room {
        Room::Row => shorten(text, max),
        Room::Line => one_line(text),
    };
    match &row.doing {
        Doing::Idle => "open".to_string(),
        Doing::Working => format!("working on {turn}"),
        Doing::CheckingIn => format!("checking in on {turn}"),
        Doing::CallingTool(tool) => format!("calling tool {tool}"),
        Doing::Shell(command) => format!("$ {}", fit(command, 60)),
        Doing::Settled(how) => format!("{turn} {}", fit(how, 80)),
        Doing::Closed => "closed".to_string(),
    }
}

/// All of `text` on one line: its line breaks written `\n`.
fn one_line(text: &str) -> String {
    text.trim_end().replace('\n', "\\n")
}

/// The first line of `text`, at most `max` characters (an ellipsis if cut).
pub(crate) fn shorten(text: &str, max: usize) -> String {
    let first = text.lines().next().unwrap_or("");
    if first.chars().count() <= max && first.len() == text.trim_end().len() {
        return first.to_string();
    }
    let cut: String = first.chars().take(max.saturating_sub(1)).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_to_their_first_line() {
        assert_eq!(shorten("ls -la", 60), "ls -la");
        assert_eq!(shorten("cat <<'X'\nbody\nX", 60), "cat <<'X'…");
        assert_eq!(shorten(&"x".repeat(100), 10).chars().count(), 10);
    }

    #[test]
    fn plain_lines_keep_all_of_a_text() {
        use test_events::*;
        let mut board = Board::default();
        for event in [
            opened("a", serde_json::Value::Null),
            turn_started("a", "t1"),
            shell_started("a", &format!("cat <<'X'\n{}\nX", "y".repeat(100))),
        ] {
            board.apply(&event);
        }
        let row = &board.agents[0];
        assert_eq!(doing_text(row, Room::Row), "$ cat <<'X'…");
        assert_eq!(
            doing_text(row, Room::Line),
            format!("$ cat <<'X'\\n{}\\nX", "y".repeat(100))
        );
    }
}
