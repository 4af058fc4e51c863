package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
)

// JUnit XML, the report format CI systems (GitHub Actions' test
// reporters, GitLab, Jenkins, CircleCI) show as test results: run and
// check write it with --junit FILE. Only the common subset is used:
// testsuites > testsuite > testcase with failure, error or skipped, and
// properties.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     float64      `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       float64         `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string          `xml:"name,attr"`
	Classname string          `xml:"classname,attr"`
	Time      float64         `xml:"time,attr"`
	Failure   *junitProblem   `xml:"failure,omitempty"`
	Error     *junitProblem   `xml:"error,omitempty"`
	Skipped   *junitSkipped   `xml:"skipped,omitempty"`
	Output    string          `xml:"system-out,omitempty"`
	Props     []junitProperty `xml:"properties>property,omitempty"`
}

// junitProblem is a failure (what was checked did not hold) or an error
// (it could not be checked).
type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// add appends a case and counts it.
func (s *junitSuite) add(c junitCase) {
	s.Cases = append(s.Cases, c)
	s.Tests++
	s.Time += c.Time
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
}

// total sums the suites into the root's counts.
func (r *junitSuites) total() {
	r.Tests, r.Failures, r.Errors, r.Skipped, r.Time = 0, 0, 0, 0, 0
	for _, s := range r.Suites {
		r.Tests += s.Tests
		r.Failures += s.Failures
		r.Errors += s.Errors
		r.Skipped += s.Skipped
		r.Time += s.Time
	}
}

// writeJUnit writes r to path (its directory made if needed).
func writeJUnit(path string, r junitSuites) error {
	r.total()
	b, err := xml.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}

func failureOf(kind, message, text string) *junitProblem {
	return &junitProblem{Type: kind, Message: message, Text: text}
}

func prop(name string, value any) junitProperty {
	return junitProperty{Name: name, Value: fmt.Sprint(value)}
}
