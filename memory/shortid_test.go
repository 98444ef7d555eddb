package memory

import "testing"

func TestShortIDLettersOnly(t *testing.T) {
	for id, want := range map[string]string{
		"8f2c01aa": "ofic", "0123456789abcdef": "ghij", "abcd": "abcd", "7": "n", "": "", "a-b_c$d9": "abcd",
	} {
		if got := ShortID(id); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", id, got, want)
		}
	}
	// One token by the injector's counter, where mixed hex costs up to four.
	if n := CountTokens(ShortID("8f2c01aa")); n != 1 {
		t.Errorf("short id costs %d tokens", n)
	}
}
