//! A small hand-written argument reader: `--name value`, `--name=value` and
//! positional arguments, with errors that carry the command's help.

use std::fmt;
use std::str::FromStr;

/// A command line that could not be understood (exit status 2).
#[derive(Debug)]
pub struct UsageError {
    /// What was wrong.
    pub message: String,
    /// The help text to print after the message, if any.
    pub help: Option<&'static str>,
}

impl UsageError {
    /// An error printed with `help` after it.
    pub fn with_help(message: impl Into<String>, help: &'static str) -> Self {
        UsageError {
            message: message.into(),
            help: Some(help),
        }
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The arguments after a subcommand's name, consumed front to back.
#[derive(Debug)]
pub struct Arguments<'a> {
    remaining: &'a [String],
    help: &'static str,
}

impl<'a> Arguments<'a> {
    /// The arguments `remaining` of a command whose help is `help`.
    pub fn new(remaining: &'a [String], help: &'static str) -> Self {
        Arguments { remaining, help }
    }

    /// A usage error for this command.
    pub fn error(&self, message: impl Into<String>) -> UsageError {
        UsageError::with_help(message, self.help)
    }

    /// The next option as `(name, value)`, reading both `--name value` and
    /// `--name=value`; `None` when the arguments are used up. A positional
    /// argument here is an error (these commands take only options).
    pub fn next_option(&mut self) -> Result<Option<(&'a str, &'a str)>, UsageError> {
        let Some((first, rest)) = self.remaining.split_first() else {
            return Ok(None);
        };
        let Some(option) = first.strip_prefix("--") else {
            return Err(self.error(format!("unexpected argument '{first}'")));
        };
        if let Some((name, value)) = option.split_once('=') {
            self.remaining = rest;
            return Ok(Some((name, value)));
        }
        let Some((value, rest)) = rest.split_first() else {
            return Err(self.error(format!("option '--{option}' needs a value")));
        };
        self.remaining = rest;
        Ok(Some((option, value)))
    }

    /// [`Arguments::next_option`], except that the options named in `flags`
    /// take no value: they come back as `(name, "")`.
    pub fn next_option_or_flag(&mut self, flags: &[&str]) -> Result<Option<(&'a str, &'a str)>, UsageError> {
        if let Some((first, rest)) = self.remaining.split_first()
            && let Some(name) = first.strip_prefix("--")
            && flags.contains(&name)
        {
            self.remaining = rest;
            return Ok(Some((name, "")));
        }
        self.next_option()
    }

    /// The next argument if it is positional (`-` counts as positional:
    /// it names stdin); an option here is an error.
    pub fn positional(&mut self) -> Result<Option<&'a str>, UsageError> {
        let Some((first, rest)) = self.remaining.split_first() else {
            return Ok(None);
        };
        if first.starts_with('-') && first != "-" {
            return Err(self.error(format!("unknown option '{first}'")));
        }
        self.remaining = rest;
        Ok(Some(first))
    }

    /// An error if any argument is left over.
    pub fn finish(self) -> Result<(), UsageError> {
        match self.remaining.first() {
            None => Ok(()),
            Some(extra) => Err(self.error(format!("unexpected argument '{extra}'"))),
        }
    }

    /// `value` of option `--name` parsed as a `T`, with `expected` in the message.
    pub fn parse_value<T: FromStr>(&self, name: &str, value: &str, expected: &str) -> Result<T, UsageError> {
        value
            .parse()
            .map_err(|_| self.error(format!("--{name}: expected {expected}, got '{value}'")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(arguments: &[&str]) -> Vec<String> {
        arguments.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn reads_options_both_ways() {
        let given = strings(&["--out", "dir", "--width=320"]);
        let mut arguments = Arguments::new(&given, "help");
        assert_eq!(arguments.next_option().unwrap(), Some(("out", "dir")));
        assert_eq!(arguments.next_option().unwrap(), Some(("width", "320")));
        assert_eq!(arguments.next_option().unwrap(), None);
        assert_eq!(
            arguments.parse_value::<u32>("width", "320", "a number").unwrap(),
            320
        );
        assert!(arguments.parse_value::<u32>("width", "x", "a number").is_err());
    }

    #[test]
    fn refuses_missing_values_and_strays() {
        let given = strings(&["--out"]);
        let error = Arguments::new(&given, "help").next_option().unwrap_err();
        assert_eq!(error.message, "option '--out' needs a value");
        let given = strings(&["stray"]);
        assert!(Arguments::new(&given, "help").next_option().is_err());
        let given = strings(&["file", "extra"]);
        let mut arguments = Arguments::new(&given, "help");
        assert_eq!(arguments.positional().unwrap(), Some("file"));
        assert_eq!(
            arguments.finish().unwrap_err().message,
            "unexpected argument 'extra'"
        );
        let given = strings(&["--fast"]);
        assert!(Arguments::new(&given, "help").positional().is_err());
        let given = strings(&["-"]);
        assert_eq!(Arguments::new(&given, "help").positional().unwrap(), Some("-"));
    }
}
