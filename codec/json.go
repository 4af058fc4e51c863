package codec

import "encoding/json"

// UnmarshalJSON reads null or a uuid in either form ParseUUID accepts, so
// histories written as JSON read back exactly.
func (n *NullableUUID) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = NullableUUID{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	u, err := ParseUUID(s)
	if err != nil {
		return err
	}
	*n = SomeUUID(u)
	return nil
}
