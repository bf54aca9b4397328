"""Lesson 8's check messages and hints: FlexAttention, sliding windows, caches, sinks, MLA, packing, cache sizes.
The notebook's own tables, figure labels and code comments are in lesson8_text."""

MESSAGES = {
    # ---------------------------------------------------------------- exercise 1: mask_mods
    "flex_mask_not_bool": {
        "ja": "{what} が作るマスクが bool ではありません（いまは {kind}）。mask_mod は「見てよいなら True」の bool を返します。",
        "ko": "{what}에서 만든 마스크가 bool이 아닙니다(지금은 {kind}). mask_mod는 '봐도 되면 True'인 bool을 반환해야 합니다.",
    },
    "flex_mask_differs": {
        "ja": "{what} のマスクが正しくありません（{total} か所のうち {n} か所が違います）。",
        "ko": "{what}의 마스크가 올바르지 않습니다({total}곳 중 {n}곳이 다릅니다).",
    },
    "hint_flex_control_flow": {
        "ja": "mod の中で and、or、if などの構文や、min のような Python の関数を使っていませんか。FlexAttention は mod を vmap で全位置について一度に呼ぶので、q_idx などは数ではなくテンソルです。条件は &、|、~ でつなぎ、分岐は torch.where で書きます。",
        "ko": "mod 안에서 and, or, if 같은 Python 구문이나 min 같은 Python 함수를 쓰지 않았나요? FlexAttention은 mod를 vmap으로 모든 위치에 대해 한꺼번에 호출하므로 q_idx 등은 숫자가 아니라 텐서입니다. 조건은 &, |, ~로 잇고, 분기는 torch.where로 씁니다.",
    },
    "hint_flex_item": {
        "ja": "mod の中で .item()（または int()・float()）を使っていませんか。FlexAttention は mod を vmap で全位置について一度に呼ぶので、b・h・q_idx・kv_idx は数ではなくテンソルで、.item() で数に変えることはできません。slopes[h] * (q_idx - kv_idx) のように、テンソルのまま計算します。",
        "ko": "mod 안에서 .item()(또는 int(), float())을 쓰지 않았나요? FlexAttention은 mod를 vmap으로 모든 위치에 대해 한꺼번에 호출하므로 b, h, q_idx, kv_idx는 숫자가 아니라 텐서이고, .item()으로 숫자로 바꿀 수 없습니다. slopes[h] * (q_idx - kv_idx)처럼 텐서 그대로 계산합니다.",
    },
    "hint_flex_score_mod_args": {
        "ja": "score_mod の代わりに、引数が4つのマスク関数 mod(b, h, q_idx, kv_idx) を返していませんか。score_mod は最初にスコアを受け取る5引数の関数 score_mod(score, b, h, q_idx, kv_idx) で、変えたスコア（ALiBi なら score - slopes[h] * (q_idx - kv_idx)）を返します。",
        "ko": "score_mod 대신 인자가 4개인 마스크 함수 mod(b, h, q_idx, kv_idx)를 반환하지 않았나요? score_mod는 먼저 점수를 받는 인자 5개짜리 함수 score_mod(score, b, h, q_idx, kv_idx)이고, 바꾼 점수(ALiBi라면 score - slopes[h] * (q_idx - kv_idx))를 반환합니다.",
    },
    "hint_flex_mod_factory": {
        "ja": "マスク関数そのものを書いていませんか。cache_mod・causal_padding_mod・sliding_window_mod は、T_past・lengths・window を受け取って、マスク関数を作って返す関数です。中で def mod(b, h, q_idx, kv_idx): … を定義し、最後に return mod とします。",
        "ko": "마스크 함수 자체를 쓰지 않았나요? cache_mod, causal_padding_mod, sliding_window_mod는 T_past, lengths, window를 받아 마스크 함수를 만들어 반환하는 함수입니다. 안에서 def mod(b, h, q_idx, kv_idx): …를 정의하고 마지막에 return mod 합니다.",
    },
    "hint_flex_python_bool": {
        "ja": "mod が Python の True や False を返しています。q_idx >= kv_idx のように、引数のテンソルから計算した bool のテンソルを返します。",
        "ko": "mod가 Python의 True나 False를 반환했습니다. q_idx >= kv_idx처럼 인자로 받은 텐서로 계산한 bool 텐서를 반환해야 합니다.",
    },
    "hint_flex_strict": {
        "ja": "対角線まで隠しています（q_idx > kv_idx）。トークンは自分自身を見てよいので q_idx >= kv_idx です。位置 0 のクエリは見るキーがなくなり、flex_attention はその行を 0 にします。",
        "ko": "대각선까지 가렸습니다(q_idx > kv_idx). 토큰은 자기 자신을 봐도 되므로 q_idx >= kv_idx입니다. 위치 0의 쿼리는 볼 키가 없어지고, flex_attention은 그 행을 0으로 만듭니다.",
    },
    "hint_flex_upper": {
        "ja": "不等号の向きが逆で、未来のキーを見ています。見てよいのは kv_idx <= q_idx のキーです。",
        "ko": "부등호 방향이 반대라서 미래의 키를 보고 있습니다. 봐도 되는 것은 kv_idx <= q_idx인 키입니다.",
    },
    "hint_flex_top_left": {
        "ja": "T_past を使っていません。これは左上にそろえた因果マスクで、第6回の is_causal=True と同じ間違いです。新しいトークン q_idx の本当の位置は q_idx + T_past なので、q_idx + T_past >= kv_idx にします。",
        "ko": "T_past를 쓰지 않았습니다. 이것은 왼쪽 위에 맞춘 인과 마스크로, 6강의 is_causal=True와 같은 실수입니다. 새 토큰 q_idx의 실제 위치는 q_idx + T_past이므로 q_idx + T_past >= kv_idx로 씁니다.",
    },
    "hint_flex_offset_kv": {
        "ja": "T_past をキーの側に足しています（q_idx >= kv_idx + T_past）。ずらすのは新しいトークン、つまりクエリの位置です：q_idx + T_past >= kv_idx。",
        "ko": "T_past를 키 쪽에 더했습니다(q_idx >= kv_idx + T_past). 옮겨야 하는 것은 새 토큰, 즉 쿼리의 위치입니다: q_idx + T_past >= kv_idx.",
    },
    "hint_flex_padding_queries": {
        "ja": "パディングをクエリの側で隠しています（q_idx < lengths[b]）。隠すのはパディングのキーです：kv_idx < lengths[b]。",
        "ko": "패딩을 쿼리 쪽에서 가렸습니다(q_idx < lengths[b]). 가려야 하는 것은 패딩 키입니다: kv_idx < lengths[b].",
    },
    "hint_flex_padding_off_by_one": {
        "ja": "長さ lengths[b] の系列のトークンは 0 から lengths[b] − 1 までです。kv_idx <= lengths[b] ではパディングが1つ見えてしまうので、kv_idx < lengths[b] にします。",
        "ko": "길이가 lengths[b]인 시퀀스의 토큰은 0부터 lengths[b] − 1까지입니다. kv_idx <= lengths[b]로 하면 패딩이 하나 보이므로 kv_idx < lengths[b]로 씁니다.",
    },
    "hint_flex_padding_no_causal": {
        "ja": "パディングは隠れていますが、因果マスクがありません。(q_idx >= kv_idx) & (kv_idx < lengths[b]) のように両方を & でつなぎます。",
        "ko": "패딩은 가렸지만 인과 마스크가 없습니다. (q_idx >= kv_idx) & (kv_idx < lengths[b])처럼 둘을 &로 잇습니다.",
    },
    "hint_flex_padding_ignored": {
        "ja": "どのバッチの行でも、長さが lengths[b] になっていません。lengths を使っていないか、lengths[0] や lengths[h] のように b 以外の番号で引いていませんか。行ごとの長さは lengths[b] です。kv_idx < lengths[b] を因果マスクと & でつなぎます（b はバッチの何番目か、h はヘッドの何番目かを表すテンソルです）。",
        "ko": "배치의 어느 행에서도 길이가 lengths[b]가 되지 않았습니다. lengths를 쓰지 않았거나, lengths[0]이나 lengths[h]처럼 b가 아닌 번호로 꺼내지 않았나요? 행마다의 길이는 lengths[b]입니다. kv_idx < lengths[b]를 인과 마스크와 &로 잇습니다(b는 배치의 몇 번째인지, h는 헤드의 몇 번째인지를 나타내는 텐서입니다).",
    },
    # ---------------------------------------------------------------- exercise 2: ALiBi as a score_mod
    "hint_alibi_mod_sign": {
        "ja": "符号が逆で、遠いキーほどスコアが上がっています。足すのは −m_h · (q_idx − kv_idx) です。",
        "ko": "부호가 반대라서 먼 키일수록 점수가 올라갑니다. 더하는 값은 −m_h · (q_idx − kv_idx)입니다.",
    },
    "hint_alibi_mod_score_dropped": {
        "ja": "バイアスだけを返して、元のスコア score を捨てています。score_mod は新しいスコアを返す関数なので、score - slopes[h] * (q_idx - kv_idx) を返します。",
        "ko": "편향만 반환하고 원래 점수 score를 버렸습니다. score_mod는 새 점수를 반환하는 함수이므로 score − slopes[h] · (q_idx − kv_idx)를 반환합니다.",
    },
    "hint_alibi_mod_one_slope": {
        "ja": "すべてのヘッドに同じ傾き slopes[0] を使っています。傾きはヘッドごとに違うので、ヘッドの番号 h で slopes[h] を選びます。",
        "ko": "모든 헤드에 같은 기울기 slopes[0]을 썼습니다. 기울기는 헤드마다 다르므로 헤드 번호 h로 slopes[h]를 고릅니다.",
    },
    "hint_alibi_mod_batch": {
        "ja": "傾きをバッチの番号 b で選んでいます。傾きはヘッドごとなので slopes[h] です。",
        "ko": "기울기를 배치 번호 b로 골랐습니다. 기울기는 헤드마다 정해지므로 slopes[h]입니다.",
    },
    "hint_alibi_mod_score_scaled": {
        "ja": "score をもう一度割っています（または掛けています）。flex_attention が score_mod に渡す score は、もう √D で割ったあとの q · k です。score_mod はバイアスを足すだけで、score - slopes[h] * (q_idx - kv_idx) を返します。",
        "ko": "score를 한 번 더 나눴습니다(또는 곱했습니다). flex_attention이 score_mod에 넘기는 score는 이미 √D로 나눈 q · k입니다. score_mod는 편향을 더하기만 하고 score − slopes[h] · (q_idx − kv_idx)를 반환합니다.",
    },
    # ---------------------------------------------------------------- exercise 3: sliding window
    "hint_window_plus_one": {
        "ja": "キーが W + 1 個見えています。この演習は transformers と gpt-oss の決まりで書きます。位置 p のクエリが見るのは、p − W < j ≤ p の W 個（自分を含む）です。kv_idx > p - window にします（>= ではありません）。W + 1 個を見る実装（FlashAttention の window_size=(W, 0) など）もありますが、ここでは W 個です。",
        "ko": "키가 W + 1개 보입니다. 이 연습 문제는 transformers와 gpt-oss의 규칙으로 씁니다. 위치 p의 쿼리가 보는 것은 p − W < j ≤ p인 W개(자신 포함)입니다. kv_idx > p - window로 씁니다(>=가 아닙니다). W + 1개를 보는 구현(FlashAttention의 window_size=(W, 0) 등)도 있지만, 여기서는 W개입니다.",
    },
    "hint_window_minus_one": {
        "ja": "キーが W − 1 個しか見えていません。見るのは自分を含めて W 個、p − W < j ≤ p です。",
        "ko": "키가 W − 1개만 보입니다. 봐야 하는 것은 자신을 포함한 W개, 즉 p − W < j ≤ p인 키입니다.",
    },
    "hint_window_no_causal": {
        "ja": "ウィンドウの左端しか決めていないので、未来のキーも見えています。kv_idx <= p も & でつなぎます。",
        "ko": "윈도의 왼쪽 끝만 정해서 미래의 키도 보입니다. kv_idx <= p도 &로 잇습니다.",
    },
    "hint_window_top_left": {
        "ja": "クエリの位置に T_past を足していません。キャッシュに T_past 個のトークンがあるとき、新しいトークンの位置は T_past から始まるので、q_idx 番目の新しいトークンの位置は p = q_idx + T_past です（右下にそろえます）。いまは p = q_idx なので、マスクが左上（位置 0）にそろった形になっています。",
        "ko": "쿼리 위치에 T_past를 더하지 않았습니다. 캐시에 토큰이 T_past개 있으면 새 토큰의 위치는 T_past부터 시작하므로, q_idx번째 새 토큰의 위치는 p = q_idx + T_past입니다(오른쪽 아래에 맞춥니다). 지금은 p = q_idx라서 쿼리 위치가 0부터 시작하는, 왼쪽 위에 맞춘 마스크가 됩니다.",
    },
    "hint_window_shifted": {
        "ja": "ウィンドウが1つ過去にずれています（p − W ≤ j < p）。自分自身が見えず、代わりに W 個前のキーが見えます。見るのは自分を含む p − W < j ≤ p で、(kv_idx <= p) & (kv_idx > p - window) です。",
        "ko": "윈도가 한 칸 과거로 밀렸습니다(p − W ≤ j < p). 자기 자신은 보이지 않고, 대신 W개 앞의 키가 보입니다. 봐야 하는 것은 자신을 포함한 p − W < j ≤ p, 즉 (kv_idx <= p) & (kv_idx > p - window)입니다.",
    },
    # ---------------------------------------------------------------- exercise 4: a rolling cache
    "rolling_not_pair": {
        "ja": "{name} は (出力, (k_ring, v_ring, pos)) を返してください。返ってきたのは {kind} です。",
        "ko": "{name}의 반환값은 (출력, (k_ring, v_ring, pos))여야 합니다. 반환된 것: {kind}",
    },
    "rolling_positions_differ": {
        "ja": "{n} トークンを渡したあとの pos が正しくありません（いまは {got}、正しくは {want}）。位置 p のトークンはスロット p % window に入り、pos[p % window] = p です。まだ何も入っていないスロットは −1 のままです。",
        "ko": "토큰 {n}개를 넘긴 뒤의 pos가 올바르지 않습니다(지금은 {got}, 올바른 값은 {want}). 위치 p의 토큰은 슬롯 p % window에 들어가고 pos[p % window] = p입니다. 아직 아무것도 들어가지 않은 슬롯은 −1 그대로입니다.",
    },
    "hint_rolling_grows": {
        "ja": "リングバッファが大きくなっています。k_ring と v_ring はいつも (B, H, window, D) のままで、新しいキーとバリューはスロット p % window に上書きします。torch.cat でつなげたものをキャッシュとして返してはいけません。",
        "ko": "링 버퍼가 커졌습니다. k_ring과 v_ring은 늘 (B, H, window, D) 그대로이고, 새 키와 밸류는 슬롯 p % window에 덮어씁니다. torch.cat으로 이어 붙인 것을 캐시로 반환하면 안 됩니다.",
    },
    "hint_rolling_positions": {
        "ja": "呼び出しのたびに位置を 0 から数えています。位置は系列の中の絶対位置で、T_seen = int(pos.max()) + 1 から始まります。",
        "ko": "호출할 때마다 위치를 0부터 셌습니다. 위치는 시퀀스 안의 절대 위치이고 T_seen = int(pos.max()) + 1부터 시작합니다.",
    },
    "hint_rolling_rope_restart": {
        "ja": "RoPE で回す位置だけが、呼び出しのたびに 0 から始まっています。リングへの書き込みとマスクには絶対位置を使っているのに、q と k は 0, 1, … で回しています。回すのも同じ絶対位置 positions（T_seen から）です。",
        "ko": "RoPE로 돌리는 위치만 호출할 때마다 0부터 시작합니다. 링에 쓰는 위치와 마스크에는 절대 위치를 쓰면서, q와 k는 0, 1, …로 돌렸습니다. 돌릴 때도 같은 절대 위치 positions(T_seen부터)를 씁니다.",
    },
    "hint_rolling_rope_slots": {
        "ja": "q と k をスロットの番号 p % window で回しています。スロットはリングのどこに書くかを決めるだけで、RoPE で回すのはトークンの絶対位置 p です。",
        "ko": "q와 k를 슬롯 번호 p % window로 돌렸습니다. 슬롯은 링의 어디에 쓸지만 정하고, RoPE로 돌리는 것은 토큰의 절대 위치 p입니다.",
    },
    "hint_rolling_ring_dtype": {
        "ja": "リングの dtype が q、k、v と違います。torch.zeros(B, H, window, D) のように dtype を指定しないと float32 になり、float64 のキーを書き込めません。q.new_zeros(B, H, window, D) か、dtype=q.dtype, device=q.device を付けて作ります。",
        "ko": "링의 dtype이 q, k, v와 다릅니다. torch.zeros(B, H, window, D)처럼 dtype을 지정하지 않으면 float32가 되어 float64 키를 쓸 수 없습니다. q.new_zeros(B, H, window, D)로 만들거나 dtype=q.dtype, device=q.device를 붙여 만듭니다.",
    },
    "hint_rolling_window": {
        "ja": "キーが W + 1 個見えています。残すのは key_pos > p - window のキーです（>= ではありません）。",
        "ko": "키가 W + 1개 보입니다. 남기는 것은 key_pos > p - window인 키입니다(>=가 아닙니다).",
    },
    "hint_rolling_empty": {
        "ja": "まだ何も入っていないスロット（pos が −1）まで見ています。そこに入っている 0 のキーが、スコア 0 のキーとして重みの一部を受け取ってしまいます。keep に key_pos >= 0 を加えます。",
        "ko": "아직 아무것도 들어가지 않은 슬롯(pos가 −1)까지 봤습니다. 그 슬롯에는 0으로 채운 키가 있어서, 점수가 0인 그 키들로 가중치가 새어 나갑니다. keep에 key_pos >= 0을 더합니다.",
    },
    "hint_rolling_write_first": {
        "ja": "新しいトークンを先にリングに書いてから、リングだけを見ています。一度に2つ以上渡すと、前のほうのトークンがまだ必要とするキーを、後ろのトークンが上書きしてしまいます。リングと新しいキーをつないで計算してから、書き込みます。",
        "ko": "새 토큰을 먼저 링에 쓴 다음 링만 봤습니다. 한 번에 2개 이상 넘기면 앞쪽 토큰이 아직 필요로 하는 키를 뒤쪽 토큰이 덮어써 버립니다. 링과 새 키를 이어 붙여 계산한 다음에 씁니다.",
    },
    "hint_rolling_modulo": {
        "ja": "リングの外を指しています。位置 p のトークンが入るスロットは p % window です（位置そのものではありません）。",
        "ko": "링 밖을 가리켰습니다. 위치 p인 토큰이 들어갈 슬롯은 p % window입니다(위치 그 자체가 아닙니다).",
    },
    "ring_shape_differs": {
        "ja": "{n} トークンを渡したあとのリングバッファの形状が {want} ではありません（いまは {got}）。",
        "ko": "토큰 {n}개를 넘긴 뒤 링 버퍼의 모양이 올바르지 않습니다(지금은 {got}, 올바른 모양은 {want}).",
    },
    # ---------------------------------------------------------------- exercise 5: StreamingLLM
    "stream_cache_shape": {
        "ja": "位置 {last} までのトークンを渡したあとの {name} のキャッシュ (k, v) の形状が正しくありません。どちらも (B, H, {n}, D) のはずです（いまは {got}、正しくは {want}）。",
        "ko": "위치 {last}까지의 토큰을 넘긴 뒤 {name}의 캐시 (k, v) 모양이 올바르지 않습니다. 둘 다 (B, H, {n}, D)여야 합니다(지금은 {got}, 올바른 모양은 {want}).",
    },
    "cache_differs_one": {
        "ja": "位置 {lo} のトークンの出力が、全体を一度に計算した結果と違います（最大誤差 {err:.3g}）。",
        "ko": "위치 {lo} 토큰의 출력이 전체를 한 번에 계산한 결과와 다릅니다(최대 오차 {err:.3g}).",
    },
    "hint_stream_no_sink": {
        "ja": "最初の n_sink 個のトークンも追い出しています。StreamingLLM が残すのは、先頭の n_sink 個と最後の window 個です。追い出すのはその間だけです。",
        "ko": "처음 n_sink개 토큰까지 내보냈습니다. StreamingLLM이 남기는 것은 맨 앞 n_sink개와 마지막 window개입니다. 내보내는 것은 그 사이뿐입니다.",
    },
    "hint_stream_rotated_cache": {
        "ja": "キャッシュに回したあとのキーを入れています（第7回の演習 6 のやり方です）。StreamingLLM は位置をキャッシュの中の並び順で数えるので、追い出すたびに位置が変わります。キャッシュには回す前のキーを入れ、呼び出しのたびにキャッシュ全体を位置 0, 1, 2, … で回します。",
        "ko": "캐시에 돌린 뒤의 키를 넣었습니다(7강 연습 문제 6의 방식입니다). StreamingLLM은 위치를 캐시 안의 순서로 세므로 내보낼 때마다 위치가 바뀝니다. 캐시에는 돌리기 전의 키를 넣고, 호출할 때마다 캐시 전체를 위치 0, 1, 2, …로 돌립니다.",
    },
    "hint_stream_evict_late": {
        "ja": "計算したあとで追い出しているので、次の呼び出しでは、残した n_sink + window 個に新しいトークンが加わり、キーが n_sink + window 個を超えます（1トークンずつなら n_sink + window + 1 個）。これは著者のパープレキシティの評価（eval_long_ppl.py が毎ステップの計算のあとで呼ぶ StartRecentKVCache の __call__）と同じやり方で、これも StreamingLLM の手順の1つです。ただし、この演習は evict_for_space の手順で書きます。新しいトークンを入れる前に、入れたあとで n_sink + window 個に収まるように追い出してください。",
        "ko": "계산한 뒤에 내보내고 있어서, 다음 호출에서는 남겨 둔 n_sink + window개에 새 토큰이 더해져 키가 n_sink + window개를 넘습니다(토큰을 하나씩 넘기면 n_sink + window + 1개). 이것은 저자의 퍼플렉서티 평가(eval_long_ppl.py가 스텝마다 계산 뒤에 호출하는 StartRecentKVCache의 __call__)와 같은 방식이고, 이것도 StreamingLLM의 방식 중 하나입니다. 다만 이 연습 문제는 evict_for_space 방식으로 씁니다. 새 토큰을 넣기 전에, 넣은 뒤 n_sink + window개에 들어가도록 내보냅니다.",
    },
    "hint_stream_budget": {
        "ja": "キャッシュが n_sink + window 個を超えています。新しいトークンの分の場所も空けるので、残す古いトークンは先頭の n_sink 個と、最後の window - T_new 個です。",
        "ko": "캐시가 n_sink + window개를 넘었습니다. 새 토큰이 들어갈 자리도 비워야 하므로, 남기는 이전 토큰은 맨 앞 n_sink개와 마지막 window − T_new개입니다.",
    },
    "hint_stream_is_causal": {
        "ja": "マスクが左上にそろっています（is_causal=True か tril()）。キャッシュがあると新しいトークンはキャッシュの最後にいるので、右下にそろえた keep = torch.ones(T_new, k.size(2), dtype=torch.bool, device=q.device).tril(diagonal=k.size(2) - T_new) を使います（k.size(2) はキャッシュと新しいトークンをつないだあとのキーの数 L'。SDPA なら attn_mask=keep）。is_causal=True では、1トークンずつ渡したときにキャッシュの先頭のキーしか見えません。",
        "ko": "마스크가 왼쪽 위에 맞춰져 있습니다(is_causal=True나 tril()). 캐시가 있으면 새 토큰은 캐시의 끝에 있으므로, 오른쪽 아래에 맞춘 keep = torch.ones(T_new, k.size(2), dtype=torch.bool, device=q.device).tril(diagonal=k.size(2) - T_new)를 씁니다(k.size(2)는 캐시와 새 토큰을 이은 뒤의 키 개수 L'. SDPA라면 attn_mask=keep). is_causal=True로는 토큰을 하나씩 넘길 때 캐시 맨 앞의 키만 보입니다.",
    },
    # ---------------------------------------------------------------- exercise 6: gpt-oss's sink
    "hint_sink_missing": {
        "ja": "重みがふつうのアテンションと同じです（各行の和が 1 です）。シンクの列をつないでいないか、列を捨てたあとで正規化し直しているようです。スコアの最後に sinks[h] の列をつないで (…, T_k + 1) にしてからソフトマックスをとり、その列を捨てたら、それ以上は何もしません。",
        "ko": "가중치가 보통 어텐션과 같습니다(각 행의 합이 1입니다). 싱크 열을 이어 붙이지 않았거나, 그 열을 버린 뒤에 다시 정규화했습니다. 점수 끝에 sinks[h]의 열을 이어 붙여 (…, T_k + 1)로 만든 다음 소프트맥스를 적용하고, 그 열을 버린 뒤에는 아무것도 하지 마세요.",
    },
    "hint_sink_scaled": {
        "ja": "シンクのロジットまで √D で割っています。√D で割るのは q · k だけで、sinks[h] はそのまま列に入れます。",
        "ko": "싱크 로짓까지 √D로 나눴습니다. √D로 나누는 것은 q · k뿐이고, sinks[h]는 그대로 열에 넣습니다.",
    },
    "hint_sink_wrong_column": {
        "ja": "捨てる列を間違えています。シンクの列を最後につないだなら、捨てるのも最後の列です（[..., :-1]）。いまは最初のキーの重みを捨てています。",
        "ko": "버리는 열이 틀렸습니다. 싱크 열을 끝에 붙였다면 버리는 것도 마지막 열입니다([..., :-1]). 지금은 첫 번째 키의 가중치를 버렸습니다.",
    },
    "hint_sink_column_first": {
        "ja": "シンクの列をスコアの前につないだのに、最後の列を捨てています。いま捨てているのは最後のキーの重みで、残った最初の列がシンクの重みです。列はスコアの最後につなぎ（torch.cat([scores, sink], dim=-1)）、[..., :-1] で捨てます。",
        "ko": "싱크 열을 점수 앞에 붙여 놓고 마지막 열을 버렸습니다. 지금 버린 것은 마지막 키의 가중치이고, 남은 첫 열이 싱크의 가중치입니다. 열은 점수 끝에 붙이고(torch.cat([scores, sink], dim=-1)), [..., :-1]로 버립니다.",
    },
    "hint_sink_max": {
        "ja": "キーの最大値を引いた exp(s − m) と、引いていない exp(sinks[h]) を足しています。同じ m を引いた exp(sinks[h] − m) を分母に足すか、列をつないでから torch.softmax をとります。",
        "ko": "키의 최댓값을 뺀 exp(s − m)과 빼지 않은 exp(sinks[h])를 더했습니다. 같은 m을 뺀 exp(sinks[h] − m)을 분모에 더하거나, 열을 이어 붙인 다음 torch.softmax를 적용합니다.",
    },
    "hint_sink_column_kept": {
        "ja": "重みにシンクの列が残っています。ソフトマックスのあとで [..., :-1] としてシンクの列を捨て、(B, H, T_q, T_k) を返します。",
        "ko": "가중치에 싱크 열이 남아 있습니다. 소프트맥스 뒤에 [..., :-1]로 싱크 열을 버리고 (B, H, T_q, T_k)를 반환합니다.",
    },
    "hint_sink_rows_sum_to_one": {
        "ja": "重みの各行の和が 1 になっています。シンクの列を捨てたあとで正規化し直してはいけません。和が 1 より小さい分が、シンクに流れた重みです。",
        "ko": "가중치의 각 행의 합이 1입니다. 싱크 열을 버린 뒤 다시 정규화하면 안 됩니다. 합이 1보다 작은 만큼이 싱크로 흘러간 가중치입니다.",
    },
    # ---------------------------------------------------------------- exercise 7: MLA
    "hint_mla_norm_layer": {
        "ja": "kv_a_layernorm がないか、大きさが違います。潜在ベクトル（幅 kv_lora_rank = {r}）にかける nn.RMSNorm({r}, eps=1e-6) です。",
        "ko": "kv_a_layernorm이 없거나 크기가 다릅니다. 잠재 벡터(폭 kv_lora_rank = {r})에 적용하는 nn.RMSNorm({r}, eps=1e-6)입니다.",
    },
    "hint_mla_norm": {
        "ja": "潜在ベクトル c に kv_a_layernorm をかけていません。kv_a_proj_with_mqa の出力を c と k_R に分けたあと、c だけを正規化してから kv_b_proj に通します（k_R は正規化しません）。",
        "ko": "잠재 벡터 c에 kv_a_layernorm을 적용하지 않았습니다. kv_a_proj_with_mqa의 출력을 c와 k_R로 나눈 뒤 c만 정규화하고 kv_b_proj에 통과시킵니다(k_R은 정규화하지 않습니다).",
    },
    "hint_mla_scale": {
        "ja": "√d_C で割っています。クエリとキーの幅は d_C + d_R（qk_nope_head_dim + qk_rope_head_dim）なので、√(d_C + d_R) で割ります。",
        "ko": "√d_C로 나눴습니다. 쿼리와 키의 폭은 d_C + d_R(qk_nope_head_dim + qk_rope_head_dim)이므로 √(d_C + d_R)로 나눕니다.",
    },
    "hint_mla_no_mask": {
        "ja": "因果マスクがかかっていません。DeepSeek-V3 もデコーダなので、位置 t のクエリが見るのは位置 0 から t までのキーです。",
        "ko": "인과 마스크가 적용되지 않았습니다. DeepSeek-V3도 디코더이므로 위치 t의 쿼리가 보는 것은 위치 0부터 t까지의 키입니다.",
    },
    "hint_mla_kv_split": {
        "ja": "kv_b_proj の出力を分ける順番が逆です。各ヘッドの d_C + d_V 個のうち、前の d_C 個が k_C、後ろの d_V 個が v です。",
        "ko": "kv_b_proj 출력을 나누는 순서가 반대입니다. 각 헤드의 d_C + d_V개 중 앞의 d_C개가 k_C, 뒤의 d_V개가 v입니다.",
    },
    "hint_mla_latent_split": {
        "ja": "kv_a_proj_with_mqa の出力を分ける順番が逆です。前の r 個（kv_lora_rank）が c、後ろの d_R 個（qk_rope_head_dim）が k_R です。",
        "ko": "kv_a_proj_with_mqa 출력을 나누는 순서가 반대입니다. 앞의 r개(kv_lora_rank)가 c, 뒤의 d_R개(qk_rope_head_dim)가 k_R입니다.",
    },
    "hint_mla_q_split": {
        "ja": "クエリを分ける順番が逆です。各ヘッドの前の d_C 個（qk_nope_head_dim）が q_C、後ろの d_R 個（qk_rope_head_dim）が q_R で、回すのは後ろの q_R だけです。",
        "ko": "쿼리를 나누는 순서가 반대입니다. 각 헤드의 앞 d_C개(qk_nope_head_dim)가 q_C, 뒤 d_R개(qk_rope_head_dim)가 q_R이고, 돌리는 것은 뒤쪽 q_R뿐입니다.",
    },
    # ---------------------------------------------------------------- exercise 8: the absorbed form
    "hint_mla_latent_contents": {
        "ja": "キャッシュに入れるのは、正規化したあとの c と、位置で回したあとの k_R です（どちらもヘッドに分けません）。",
        "ko": "캐시에 넣는 것은 정규화한 뒤의 c와 위치만큼 돌린 뒤의 k_R입니다(둘 다 헤드로 나누지 않습니다).",
    },
    "hint_mla_cache_expanded": {
        "ja": "キャッシュがヘッドに分かれています。MLA のキャッシュは1トークンあたり c の {r} 個と k_R の {dr} 個だけで、ヘッド {h} 個が共有します。k_C と v に展開したものをキャッシュしてはいけません。",
        "ko": "캐시가 헤드로 나뉘어 있습니다. MLA의 캐시는 토큰 하나당 c {r}개와 k_R {dr}개뿐이고, 헤드 {h}개가 함께 씁니다. k_C와 v로 펼친 것을 캐시하면 안 됩니다.",
    },
    "hint_mla_positions": {
        "ja": "呼び出しのたびに位置を 0 から数えています。新しいトークンの位置は T_past, T_past + 1, … です（T_past はキャッシュの長さ）。",
        "ko": "호출할 때마다 위치를 0부터 셌습니다. 새 토큰의 위치는 T_past, T_past + 1, …입니다(T_past는 캐시의 길이).",
    },
    "hint_mla_absorb_swapped": {
        "ja": "W_UK と W_UV が入れ替わっています。kv_b_proj.weight を view(H, d_C + d_V, r) で見たとき、各ヘッドの前の d_C 行が W_UK（クエリの側に吸収）、後ろの d_V 行が W_UV（出力の側に吸収）です。",
        "ko": "W_UK와 W_UV가 뒤바뀌었습니다. kv_b_proj.weight를 view(H, d_C + d_V, r)로 보면 각 헤드의 앞 d_C행이 W_UK(쿼리 쪽으로 흡수), 뒤 d_V행이 W_UV(출력 쪽으로 흡수)입니다.",
    },
    "mla_not_absorbed": {
        "ja": "出力は合っていますが、キャッシュしたトークン全部について、キーかバリューをヘッドごとに展開しています（c から k_C か v を作っています）。この演習では、W_UK をクエリ側に、W_UV を出力側に吸収した形で書きます。",
        "ko": "출력은 맞지만, 캐시한 토큰 전부에 대해 헤드마다 키나 밸류를 만들었습니다(c에서 k_C나 v를 계산했습니다). 이 연습 문제에서는 W_UK는 쿼리 쪽에, W_UV는 출력 쪽에 흡수한 형태로 계산하세요.",
    },
    "hint_mla_not_absorbed": {
        "ja": "キャッシュ全体からヘッドごとの k_C と v を作ると（kv_b_proj(c) でまとめて作っても、c @ W_UK[h].T のように1ヘッドずつ作っても）、保存するのは小さい c でも、毎ステップすべてのトークンについてヘッドごとのキーとバリューを作り直すことになり、計算もメモリの読み書きも増えます。W_UK をクエリ側に、W_UV を出力側に吸収してください。kv_b_proj.weight.view(H, d_C + d_V, r) を W_UK と W_UV に分け、スコアは (q_C @ W_UK) @ c[:, None].transpose(-2, -1)、出力は (weights @ c[:, None]) @ W_UV.transpose(-2, -1) で計算します。こうすると c は幅 r のまま使われます。",
        "ko": "캐시한 토큰 전체에 대해 헤드마다 k_C와 v를 만들고 있습니다(kv_b_proj(c)로 한꺼번에 만들든, c @ W_UK[h].T처럼 헤드별로 만들든 마찬가지입니다). 이러면 캐시 자체는 작아도 스텝마다 캐시 길이 × H × (d_C + d_V)만큼 계산하고 메모리를 읽고 써야 합니다. kv_b_proj.weight를 view(H, d_C + d_V, r)로 바꿔 W_UK와 W_UV로 나누고, 점수는 (q_C @ W_UK) @ c[:, None].transpose(-2, -1), 출력은 (weights @ c[:, None]) @ W_UV.transpose(-2, -1)로 계산하세요(흡수). 이렇게 하면 c를 직접 다루는 계산은 폭 r 그대로 끝납니다.",
    },
    "hidden_latent_shape": {
        "ja": "隠しテスト：{n} トークンを渡したあとの潜在キャッシュの形状が {want} ではありません（いまは {got}）。",
        "ko": "숨겨진 테스트: 토큰 {n}개를 넘긴 뒤 잠재 캐시의 모양이 올바르지 않습니다(지금은 {got}, 올바른 모양은 {want}).",
    },
    # ---------------------------------------------------------------- exercise 9: a preallocated cache
    "static_buffer_differs": {
        "ja": "{n} トークンを渡したあとのバッファ k_buf、v_buf の中身が正しくありません。位置 T_past から T_past + T_new − 1 に、新しいキーとバリューを書き込みます。",
        "ko": "토큰 {n}개를 넘긴 뒤 버퍼 k_buf, v_buf의 내용이 올바르지 않습니다. 위치 T_past부터 T_past + T_new − 1에 새 키와 밸류를 써야 합니다.",
    },
    "hint_static_not_written": {
        "ja": "渡されたバッファに何も書き込まれていません。k_buf = k_buf.index_copy(...) のように名前に新しいテンソルを代入しても、呼び出し側のバッファは 0 のままなので、次の呼び出しでは古いキーが 0 として読まれます。k_buf[:, :, T_past:T_past + T_new] = k（または index_copy_ のように _ の付いたメソッド）で、確保してあるバッファそのものに書き込みます。",
        "ko": "넘겨받은 버퍼에 아무것도 쓰지 않았습니다. k_buf = k_buf.index_copy(...)처럼 이름에 새 텐서를 대입해도 호출한 쪽의 버퍼는 0 그대로라서, 다음 호출에서 이전 키가 0으로 읽힙니다. k_buf[:, :, T_past:T_past + T_new] = k(또는 index_copy_처럼 _가 붙은 메서드)로 미리 확보한 버퍼 자체에 씁니다.",
    },
    "hint_static_offset": {
        "ja": "いつもバッファの先頭（位置 0）に書き込んでいます。書き込む場所は T_past からです。",
        "ko": "늘 버퍼의 맨 앞(위치 0)에 썼습니다. 쓸 곳은 T_past부터입니다.",
    },
    "hint_static_unsliced": {
        "ja": "バッファを、書き込んだところまで系列の軸で切り出さずに使っています（T_max 個分すべてを使っているか、別の軸で切り出しています）。これでは、まだ書き込んでいない位置まで含まれてしまいます。k_buf[:, :, :T_past + T_new]、v_buf[:, :, :T_past + T_new] のように、軸 2 を切り出してから使ってください。",
        "ko": "버퍼를 시퀀스 축에서 값을 쓴 곳까지 잘라 내지 않고 사용했습니다(버퍼 전체 T_max개를 사용했거나 다른 축을 잘랐습니다). 아직 값을 쓰지 않은 위치까지 포함되므로 k_buf[:, :, :T_past + T_new], v_buf[:, :, :T_past + T_new]처럼 축 2를 잘라서 사용하세요.",
    },
    "hint_static_plus_one": {
        "ja": "書き込む場所が1つ後ろにずれています。位置 0 から T_past − 1 まではもう埋まっているので、新しいトークンは k_buf[:, :, T_past:T_past + T_new] に書きます（T_past + 1 からではありません）。",
        "ko": "쓰는 위치가 한 칸 뒤로 밀렸습니다. 위치 0부터 T_past − 1까지는 이미 차 있으므로, 새 토큰은 k_buf[:, :, T_past:T_past + T_new]에 씁니다(T_past + 1부터가 아닙니다).",
    },
    "hint_static_no_proj": {
        "ja": "最後の c_proj を忘れています。ヘッドをつなぎ直した (B, T_new, E) に attn.c_proj をかけてから返します。",
        "ko": "마지막 c_proj를 빠뜨렸습니다. 헤드를 다시 이어 붙인 (B, T_new, E)에 attn.c_proj를 적용한 뒤 반환합니다.",
    },
    "case_buffer": {
        "ja": "{n} トークンのあとのバッファ {part}",
        "ko": "토큰 {n}개 뒤의 버퍼 {part}",
    },
    # ---------------------------------------------------------------- exercise 10: a paged cache
    "hint_paged_divmod": {
        "ja": "// と % が入れ替わっています。位置 p のトークンは、ブロックテーブルの p // P 番目が指す物理ページの、スロット p % P に入ります（P はページの大きさ）。",
        "ko": "//와 %가 뒤바뀌었습니다. 위치 p인 토큰은 블록 테이블의 p // P번째 항목이 가리키는 물리 페이지의 슬롯 p % P에 들어갑니다(P는 페이지 크기).",
    },
    "hint_paged_table": {
        "ja": "ブロックテーブルを通していません。論理ページ i が置かれている物理ページは block_table[i] です（pages[i] ではありません）。",
        "ko": "블록 테이블을 거치지 않았습니다. 논리 페이지 i가 놓인 물리 페이지는 block_table[i]입니다(pages[i]가 아닙니다).",
    },
    "hint_paged_start": {
        "ja": "start を使わずに位置 0 から書いています。新しいトークンの位置は start, start + 1, … です。",
        "ko": "start를 쓰지 않고 위치 0부터 썼습니다. 새 토큰의 위치는 start, start + 1, …입니다.",
    },
    "hint_paged_length": {
        "ja": "最後のページの使っていないスロットまで返しています。つないだあとで [:length] と切ります。",
        "ko": "마지막 페이지의 쓰지 않은 슬롯까지 반환했습니다. 이어 붙인 뒤 [:length]로 자릅니다.",
    },
    "hint_paged_floor": {
        "ja": "最後のページが足りません。使っているページの数は length // P（切り捨て）ではなく、⌈length / P⌉（切り上げ、-(-length // P)）です。最後のページが一部しか埋まっていなくても集め、つないだあとで [:length] と切ります。",
        "ko": "마지막 페이지가 빠졌습니다. 쓰고 있는 페이지 수는 length // P(내림)가 아니라 ⌈length / P⌉(올림, -(-length // P))입니다. 마지막 페이지가 일부만 차 있어도 모으고, 이어 붙인 뒤 [:length]로 자릅니다.",
    },
    "hint_paged_layout": {
        "ja": "ページの軸の順番を取り違えています。pages は (ページ数, P, H, D) で、集めた (n, P, H, D) をそのまま reshape(n * P, H, D) すれば、トークンの順に並びます。",
        "ko": "페이지 축의 순서를 착각했습니다. pages는 (페이지 수, P, H, D)이고, 모은 (n, P, H, D)를 그대로 reshape(n * P, H, D)하면 토큰 순서대로 놓입니다.",
    },
    "case_pages": {
        "ja": "{n} トークンを書いたあとのページ（ページの大きさ {size}）",
        "ko": "토큰 {n}개를 쓴 뒤의 페이지(페이지 크기 {size})",
    },
    # ---------------------------------------------------------------- exercise 11: packed sequences
    "packed_positions_shape": {
        "ja": "packed_positions は長さ {n} の整数（torch.long）のテンソルを返してください。いまは {got} です。位置は transformers の position_ids と同じく整数で返します（float にはしません）。",
        "ko": "packed_positions는 길이 {n}인 정수(torch.long) 텐서를 반환해야 합니다. 지금은 {got}입니다. 위치는 transformers의 position_ids처럼 정수로 반환합니다(float로 만들지 않습니다).",
    },
    "packed_positions_differ": {
        "ja": "位置が正しくありません（いまは {got}、正しくは {want}）。",
        "ko": "위치가 올바르지 않습니다(지금은 {got}, 올바른 값은 {want}).",
    },
    "hint_packed_positions": {
        "ja": "位置が文書ごとに 0 に戻っていません。各トークンの位置は、自分の文書の先頭 cu_seqlens[doc] からの距離です（transformers も、sdpa・eager のときは attention_mask とキャッシュがなければ、位置が1つ前の +1 になっていないところで文書を区切ります）。",
        "ko": "위치가 문서마다 0으로 돌아가지 않았습니다. 각 토큰의 위치는 자기 문서의 시작 cu_seqlens[doc]부터의 거리입니다(transformers도 sdpa, eager일 때는 attention_mask와 캐시가 없으면 위치가 바로 앞의 +1이 아닌 곳에서 문서를 나눕니다).",
    },
    "hint_packed_boundary": {
        "ja": "文書の最初のトークンが、1つ前の文書に入っています。torch.searchsorted(cu_seqlens, idx, right=True) - 1 にします（right=False では、境目の位置が前の文書になります）。",
        "ko": "문서의 첫 토큰이 바로 앞 문서에 들어갔습니다. torch.searchsorted(cu_seqlens, idx, right=True) - 1로 씁니다(right=False이면 경계 위치가 앞 문서가 됩니다).",
    },
    "hint_packed_not_causal": {
        "ja": "同じ文書どうしは見えていますが、因果マスクがありません。(doc[q_idx] == doc[kv_idx]) & (q_idx >= kv_idx) にします。",
        "ko": "같은 문서끼리는 보이지만 인과 마스크가 없습니다. (doc[q_idx] == doc[kv_idx]) & (q_idx >= kv_idx)로 씁니다.",
    },
    "hint_packed_no_docs": {
        "ja": "因果マスクだけで、ほかの文書のキーまで見えています。doc[q_idx] == doc[kv_idx] も & でつなぎます。",
        "ko": "인과 마스크뿐이라서 다른 문서의 키까지 보입니다. doc[q_idx] == doc[kv_idx]도 &로 잇습니다.",
    },
    # ---------------------------------------------------------------- exercise 12: what a cache costs
    "bytes_differs": {
        "ja": "cache_bytes({config}, T={T}, batch={batch}, dtype={dtype}) が {got} です。正しくは {want} です。",
        "ko": "cache_bytes({config}, T={T}, batch={batch}, dtype={dtype})의 반환값이 {got}입니다. 올바른 값은 {want}입니다.",
    },
    "hint_bytes_latent_twice": {
        "ja": "MLA のキャッシュを2倍しています。MLA がキャッシュするのは1トークン・1層あたり、潜在ベクトルと RoPE のキーを合わせた latent_dim 個だけで、キーとバリューの2本ではありません。",
        "ko": "MLA의 캐시를 2배로 셌습니다. MLA가 캐시하는 것은 토큰 하나·층 하나당 잠재 벡터와 RoPE 키를 합친 latent_dim개뿐이고, 키와 밸류 두 벌이 아닙니다.",
    },
    "hint_bytes_window_ignored": {
        "ja": "window を使っていません。スライディングウィンドウの層がキャッシュするのは min(T, window) トークンだけです。",
        "ko": "window를 쓰지 않았습니다. 슬라이딩 윈도 층이 캐시하는 것은 min(T, window)개 토큰뿐입니다.",
    },
    "hint_bytes_window_all": {
        "ja": "すべての層にウィンドウをかけています。ウィンドウを使うのは window_layers 個の層だけで、残りの層は T トークン全部をキャッシュします（gpt-oss では、ウィンドウを使う層と全体を見る層が交互に並びます）。",
        "ko": "모든 층에 윈도를 적용했습니다. 윈도를 쓰는 것은 window_layers개 층뿐이고, 나머지 층은 토큰 T개를 모두 캐시합니다(gpt-oss에서는 윈도를 쓰는 층과 전체를 보는 층이 번갈아 놓입니다).",
    },
    "hint_bytes_dtype_size": {
        "ja": "どのデータ型でも1要素を2バイトとして数えていませんか。1要素のバイト数はデータ型で決まります（float32 は 4、float16・bfloat16 は 2、float8 は 1）。関数の最初で求めている size（torch.empty((), dtype=dtype).element_size()）を掛けます。",
        "ko": "어떤 자료형이든 요소 하나를 2바이트로 세지 않았나요? 요소 하나의 바이트 수는 자료형으로 정해집니다(float32는 4, float16과 bfloat16은 2, float8은 1). 함수 처음에서 구한 size(torch.empty((), dtype=dtype).element_size())를 곱합니다.",
    },
    "hint_bytes_no_batch": {
        "ja": "batch を掛けていません。バッチの系列はそれぞれ自分のキャッシュを持つので、バイト数は batch に比例します。",
        "ko": "batch를 곱하지 않았습니다. 배치의 시퀀스는 각자 자기 캐시를 가지므로 바이트 수는 batch에 비례합니다.",
    },
    "hint_bytes_kv_once": {
        "ja": "キーとバリューの2つ分になっていません。1層・1トークンあたり、キーとバリューを n_kv_head × head_dim 個ずつキャッシュするので、2 × n_kv_head × head_dim 個です（2倍しないのは、潜在ベクトルと RoPE のキーを合わせて latent_dim 個をキャッシュする MLA だけです）。",
        "ko": "키와 밸류 두 개 분량이 되지 않았습니다. 층 하나·토큰 하나당 키와 밸류를 n_kv_head × head_dim개씩 캐시하므로 2 × n_kv_head × head_dim개입니다(2배 하지 않는 것은 잠재 벡터와 RoPE 키를 합쳐 latent_dim개를 캐시하는 MLA뿐입니다).",
    },

    # ---------------------------------------------------------------- what a wrong mask gets wrong (no classic variant)
    "hint_mask_future": {
        "ja": "未来のキーが見えています。本当の位置より後ろのキー（kv_idx > 本当の位置）は、どの mask_mod でも隠します。条件を & ではなく | でつないでいないか、比較の向きが逆になっていないか確かめてください。",
        "ko": "미래의 키가 보입니다. 실제 위치보다 뒤에 있는 키(kv_idx > 실제 위치)는 어떤 mask_mod에서도 가립니다. 조건을 &가 아니라 |로 잇지 않았는지, 비교 방향이 뒤집히지 않았는지 확인하세요.",
    },
    "hint_mask_self_hidden": {
        "ja": "自分自身を見ていないクエリがあります。本当の位置が p のクエリはキー p（自分）を見てよいので、そのキーは残します。比較の等号（>= と >）、本当の位置 q_idx + T_past の足し方、& でつないだ条件を確かめてください。",
        "ko": "자기 자신을 보지 못하는 쿼리가 있습니다. 실제 위치가 p인 쿼리는 키 p(자기 자신)를 봐도 되므로 그 키는 남깁니다. 비교의 등호(>=와 >), 실제 위치 q_idx + T_past를 더하는 방법, &로 이은 조건을 확인하세요.",
    },
    "hint_mask_too_old": {
        "ja": "ウィンドウより古いキーが見えています。位置 p のクエリが見るのは p − W < kv_idx ≤ p の W 個だけです（kv_idx > p - window）。",
        "ko": "윈도보다 오래된 키가 보입니다. 위치 p인 쿼리가 보는 것은 p − W < kv_idx ≤ p인 W개뿐입니다(kv_idx > p - window).",
    },
    "hint_mask_padding_keys": {
        "ja": "パディングのキー（kv_idx >= lengths[b]）が見えています。因果マスクの条件と kv_idx < lengths[b] を & でつなぎます。",
        "ko": "패딩 키(kv_idx >= lengths[b])가 보입니다. 인과 마스크 조건과 kv_idx < lengths[b]를 &로 잇습니다.",
    },
    "hint_mask_other_document": {
        "ja": "別の文書のキーが見えています。doc[q_idx] == doc[kv_idx]（同じ文書）と因果マスクの条件を & でつなぎます。",
        "ko": "다른 문서의 키가 보입니다. doc[q_idx] == doc[kv_idx](같은 문서)와 인과 마스크 조건을 &로 잇습니다.",
    },
    # ---------------------------------------------------------------- exercise 10, 12: more named mistakes
    "hint_sink_mask_ignored": {
        "ja": "keep を渡したのに、隠すはずのキーにも重みがあります。keep が渡されたとき（if keep is not None:）は、スコアを scores.masked_fill(~keep, float(\"-inf\")) で隠してからシンクの列をつなぎます。",
        "ko": "keep을 넘겼는데 가려야 할 키에도 가중치가 있습니다. keep이 넘어왔을 때(if keep is not None:)는 점수를 scores.masked_fill(~keep, float(\"-inf\"))로 가린 뒤 싱크 열을 붙입니다.",
    },
    "hint_mla_norm_eps": {
        "ja": "kv_a_layernorm の eps が 1e-6 ではありません（いまは {eps}）。transformers の DeepseekV3Attention は、この正規化を DeepseekV3RMSNorm(kv_lora_rank) で作り、クラスの既定値 eps=1e-6 を使います（設定の rms_norm_eps は読みません）。nn.RMSNorm(r, eps=1e-6) とします。eps を省くと nn.RMSNorm は計算に使うデータ型の機械イプシロン（float64 なら約 2.2e-16）を使うので、DeepseekV3Attention と出力がわずかにずれます。",
        "ko": "kv_a_layernorm의 eps가 1e-6이 아닙니다(지금은 {eps}). transformers의 DeepseekV3Attention은 이 정규화를 DeepseekV3RMSNorm(kv_lora_rank)으로 만들고, 클래스의 기본값 eps=1e-6을 씁니다(설정의 rms_norm_eps는 읽지 않습니다). nn.RMSNorm(r, eps=1e-6)으로 만듭니다. eps를 빼면 nn.RMSNorm은 계산에 쓰는 자료형의 기계 엡실론(float64라면 약 2.2e-16)을 쓰므로 DeepseekV3Attention과 출력이 조금 어긋납니다.",
    },
    "hint_mla_cat_order": {
        "ja": "q と k で、つなぐ順番がそろっていません。どちらも前が RoPE なしの部分、後ろが RoPE の部分です（q = [q^C; q^R]、k = [k^C; k^R]）。順番が違うと、q·k が別の成分どうしを掛け合わせます。",
        "ko": "q와 k에서 이어 붙이는 순서가 맞지 않습니다. 둘 다 앞쪽이 RoPE가 없는 부분, 뒤쪽이 RoPE 부분입니다(q = [q^C; q^R], k = [k^C; k^R]). 순서가 다르면 q·k가 서로 다른 성분끼리 곱하게 됩니다.",
    },
    "hint_paged_positions": {
        "ja": "新しいトークンの位置が、トークン1つにつき1つになっていません。位置は start, start + 1, …, start + T_new − 1、つまり torch.arange(start, start + k_new.size(0)) です。",
        "ko": "새 토큰의 위치가 토큰 하나에 하나씩이 아닙니다. 위치는 start, start + 1, …, start + T_new − 1, 즉 torch.arange(start, start + k_new.size(0))입니다.",
    },
    "hint_packed_doc_index": {
        "ja": "文書の番号が範囲を外れています。トークン i の文書の番号は torch.searchsorted(cu_seqlens, i, right=True) - 1 で、0 から（文書の数 − 1）までです。",
        "ko": "문서 번호가 범위를 벗어났습니다. 토큰 i의 문서 번호는 torch.searchsorted(cu_seqlens, i, right=True) - 1이고, 0부터 (문서 수 − 1)까지입니다.",
    },
    "hint_packed_total": {
        "ja": "cu_seqlens 全体を1つの数にしようとしています。詰めた行の長さ T は、最後の要素 int(cu_seqlens[-1]) です。",
        "ko": "cu_seqlens 전체를 하나의 수로 바꾸려고 했습니다. 채운 행의 길이 T는 마지막 원소 int(cu_seqlens[-1])입니다.",
    },
    "hint_packed_negative": {
        "ja": "負の位置があります。文書の中での位置は、トークンの番号からその文書の始まりを引いた idx - cu_seqlens[doc] で、どの文書でも 0 から始まります。",
        "ko": "음수 위치가 있습니다. 문서 안에서의 위치는 토큰 번호에서 그 문서의 시작을 뺀 idx - cu_seqlens[doc]이고, 어느 문서에서나 0부터 시작합니다.",
    },
    "hint_paged_pages_count": {
        "ja": "使うページの数 n が違います。length 個のトークンが入るページの数は length / P の切り上げ、(length + P - 1) // P です（P はページの大きさ）。",
        "ko": "사용하는 페이지 수 n이 틀렸습니다. length개의 토큰이 들어가는 페이지 수는 length / P의 올림, (length + P - 1) // P입니다(P는 페이지 크기).",
    },
    "hint_paged_table_slice": {
        "ja": "使うページを絞らずに並べています。ブロックテーブルの先頭 n 個 block_table[:n] が指すページだけを集めてから、(n * P, H, D) にします。",
        "ko": "사용할 페이지를 추리지 않고 늘어놓았습니다. 블록 테이블의 앞쪽 n개 block_table[:n]이 가리키는 페이지만 모은 뒤 (n * P, H, D)로 만듭니다.",
    },
    "hint_bytes_key": {
        "ja": "config にないキーを読んでいます。MLA の設定（latent_dim がある）には n_kv_head も head_dim もなく、window や window_layers がない設定もあります。ないかもしれないキーは config.get(...) で読みます。",
        "ko": "config에 없는 키를 읽었습니다. MLA 설정(latent_dim이 있는 것)에는 n_kv_head도 head_dim도 없고, window나 window_layers가 없는 설정도 있습니다. 없을 수도 있는 키는 config.get(...)으로 읽습니다.",
    },
    "hint_bytes_config": {
        "ja": "config は辞書です。計算に使う数は config[\"n_layer\"] のようにキーで取り出します（辞書そのものやキーの文字列は数として使えません）。",
        "ko": "config는 딕셔너리입니다. 계산에 쓰는 수는 config[\"n_layer\"]처럼 키로 꺼냅니다(딕셔너리 자체나 키 문자열은 수로 쓸 수 없습니다).",
    },
    "hint_bytes_no_window": {
        "ja": "window のない設定で window（None）を数として使っています。config.get(\"window\") が None なら、すべての層が T トークン分をキャッシュします。",
        "ko": "window가 없는 설정에서 window(None)를 수로 썼습니다. config.get(\"window\")가 None이면 모든 층이 T 토큰만큼 캐시합니다.",
    },
    "hint_cache_none": {
        "ja": "最初の呼び出しでは cache は None ですが、その None を分解するか、cache[0] のように要素を取り出そうとしています。if cache is None: の分岐があるか、その条件が逆になっていないかを確かめてください。",
        "ko": "첫 호출에서는 cache가 None인데, 이 None을 언패킹하거나 cache[0]처럼 인덱싱했습니다. if cache is None: 분기가 있는지, 조건이 거꾸로 되지 않았는지 확인하세요.",
    },
    "hint_rolling_write": {
        "ja": "リングバッファで書き込み先にするスロットの数と、書き込むトークンの数が合いません。書き込むのは、新しいトークンのうち、系列の軸（軸 2）で最後の min(T_new, window) 個で、書き込み先はスロット positions[-min(T_new, window):] % window です（slots = positions[-min(T_new, window):] % window として、k_ring[:, :, slots] = k[:, :, -min(T_new, window):]）。",
        "ko": "링 버퍼에서 값을 쓸 슬롯 수와 쓰려는 토큰 수가 다릅니다. 쓰는 것은 새 토큰 중 시퀀스 축(축 2)의 마지막 min(T_new, window)개이고, 쓸 곳은 슬롯 positions[-min(T_new, window):] % window입니다(slots = positions[-min(T_new, window):] % window로 두고 k_ring[:, :, slots] = k[:, :, -min(T_new, window):]).",
    },
    "hint_mla_norm_input": {
        "ja": "kv_a_layernorm に、最後の軸の大きさが r でないテンソルを渡しています。kv_a_proj_with_mqa(x) の出力を split([r, d_R], dim=-1) で c、k_R の順に分け、正規化するのは c（幅 r）のほうです。",
        "ko": "kv_a_layernorm에 마지막 축의 크기가 r이 아닌 텐서를 넘겼습니다. kv_a_proj_with_mqa(x)의 출력을 split([r, d_R], dim=-1)로 나눠 c와 k_R을 차례로 얻고, 그중 c(폭 r)를 정규화하세요.",
    },
    "hint_mla_cache_span": {
        "ja": "キャッシュがある呼び出しで、長さ T_new のものと T_past + T_new のものを組み合わせたため、形状が合っていません。マスクの形状は (T_new, T_past + T_new) で、T_past はキャッシュの長さ cache[0].size(1) です（T_past を 0 のままにすると、位置も 0 から数え直してしまいます）。c と k_R の両方をキャッシュの後ろにつないだかも確かめてください。",
        "ko": "캐시가 있는 호출에서 길이가 T_new인 텐서와 T_past + T_new인 텐서의 모양이 맞지 않습니다. 마스크의 모양은 (T_new, T_past + T_new)이고, T_past는 캐시 길이 cache[0].size(1)입니다(T_past를 0으로 두면 위치도 0부터 다시 세게 됩니다). c와 k_R을 모두 캐시 뒤에 이어 붙였는지도 확인하세요.",
    },
    "hint_mla_mask_transposed": {
        "ja": "マスクの行と列が逆になっています（いまは (T_past + T_new, T_new)）。スコアは (B, H, T_new, T_all) で、行が新しいトークン、列がキャッシュを含むすべてのキーなので、マスクも torch.ones(T_new, T_past + T_new, dtype=torch.bool).tril(diagonal=T_past) の順で作ります。",
        "ko": "마스크의 행과 열이 뒤바뀌었습니다(지금은 (T_past + T_new, T_new)). 점수는 (B, H, T_new, T_all)이고 행이 새 토큰, 열이 캐시를 포함한 모든 키이므로, 마스크도 torch.ones(T_new, T_past + T_new, dtype=torch.bool).tril(diagonal=T_past) 순서로 만듭니다.",
    },
    "hint_mla_cache_not_joined": {
        "ja": "キャッシュがある呼び出しで、c か k_R が T_past + T_new トークンになっていません。キャッシュとつないでいないか、別の軸でつないでいます。スコアはキャッシュを含むすべてのトークンに対して計算するので、c = torch.cat([cache[0], c], dim=1)、k_R = torch.cat([cache[1], k_R], dim=1) のように、どちらもトークンの軸（軸 1）でキャッシュの後ろにつなぎます。",
        "ko": "캐시가 있는 호출에서 c나 k_R이 T_past + T_new 토큰이 되지 않았습니다. 캐시와 이어 붙이지 않았거나 다른 축으로 이어 붙였습니다. 점수는 캐시를 포함한 모든 토큰에 대해 계산하므로, c = torch.cat([cache[0], c], dim=1), k_R = torch.cat([cache[1], k_R], dim=1)처럼 둘 다 토큰 축(축 1)에서 캐시 뒤에 이어 붙입니다.",
    },
    "hint_rolling_replaced": {
        "ja": "リングバッファに書き込まずに、新しいテンソルで置き換えています（k_ring = k や k_ring = k[:, :, -min(T_new, window):] のような代入）。リングバッファのスロットはいつも W 個で、新しいトークンは、絶対位置が p ならスロット p % window（window は W）に書き込みます。書き込むのは最後の min(T_new, window) 個なので、slots = positions[-min(T_new, window):] % window として、k_ring[:, :, slots] = k[:, :, -min(T_new, window):]、v_ring[:, :, slots] = v[:, :, -min(T_new, window):]、pos[slots] = positions[-min(T_new, window):] のように、添字をつけて代入してください。",
        "ko": "링 버퍼의 슬롯에 값을 써넣지 않고 변수 자체를 새 텐서로 바꿔 버렸습니다(k_ring = k나 k_ring = k[:, :, -min(T_new, window):] 같은 대입). 링 버퍼는 항상 슬롯 W개를 유지하고, 새 토큰은 절대 위치 p에 해당하는 슬롯 p % window에 씁니다. 쓰는 것은 마지막 min(T_new, window)개이므로 slots = positions[-min(T_new, window):] % window로 두고 k_ring[:, :, slots] = k[:, :, -min(T_new, window):], v_ring[:, :, slots] = v[:, :, -min(T_new, window):], pos[slots] = positions[-min(T_new, window):]처럼 인덱스를 지정해 대입하세요.",
    },
    "hint_rolling_ring_order": {
        "ja": "キャッシュの3つの要素の順番が違います。attend_rolling はキャッシュを (k_ring, v_ring, pos) の順で返し、次の呼び出しでも同じ順で k_ring, v_ring, pos = cache と分解します。",
        "ko": "캐시의 세 요소 순서가 틀렸습니다. attend_rolling은 캐시를 (k_ring, v_ring, pos) 순서로 반환하고, 다음 호출에서도 같은 순서로 k_ring, v_ring, pos = cache로 언패킹합니다.",
    },
    "hint_mla_cache_parts_swapped": {
        "ja": "潜在キャッシュの2つの要素が入れ替わっています。キャッシュは (c, k_R) の順で、c は (B, T, r)、k_R は (B, T, d_R) です。返すときも (c, k_R)、次の呼び出しでも cache[0] が c、cache[1] が k_R です。",
        "ko": "잠재 캐시의 두 요소가 뒤바뀌었습니다. 캐시는 (c, k_R) 순서이고 c는 (B, T, r), k_R은 (B, T, d_R)입니다. 반환할 때도 (c, k_R)이고, 다음 호출에서도 cache[0]이 c, cache[1]이 k_R입니다.",
    },
    "hint_mla_no_o_proj": {
        "ja": "最後の o_proj を忘れています。ヘッドをつなぎ直した (B, T, H * d_V) に self.o_proj をかけて (B, T, E) にしてから返します。",
        "ko": "마지막 o_proj를 빠뜨렸습니다. 헤드를 다시 합친 (B, T, H * d_V)에 self.o_proj를 적용해 (B, T, E)로 만든 뒤 반환합니다.",
    },
    "hint_paged_not_written": {
        "ja": "paged_write のあとも pages の中身が変わっていません。pages = … と代入すると、名前 pages が新しいテンソルを指すだけで、渡された pages には何も書き込まれません。pages[block_table[positions // P], positions % P] = k_new のように、添字をつけて pages そのものに書き込みます。",
        "ko": "paged_write를 호출한 뒤에도 pages의 내용이 그대로입니다. pages = …로 대입하면 이름 pages가 새 텐서를 가리킬 뿐, 넘겨받은 pages에는 아무것도 쓰이지 않습니다. pages[block_table[positions // P], positions % P] = k_new처럼 인덱스를 붙여 pages 자체에 씁니다.",
    },
    "hint_static_buffer_replaced": {
        "ja": "k_buf か v_buf のどちらかに何も書き込まれていません。k_buf = k のように代入すると、名前が新しいテンソルを指すだけで、渡されたバッファは 0 のままです。k_buf[:, :, T_past:T_past + T_new] = k のように、添字をつけてバッファそのものに書き込みます。",
        "ko": "k_buf나 v_buf 중 하나에 아무것도 쓰이지 않았습니다. k_buf = k처럼 대입하면 이름이 새 텐서를 가리킬 뿐, 넘겨받은 버퍼는 0 그대로입니다. k_buf[:, :, T_past:T_past + T_new] = k처럼 인덱스를 붙여 버퍼 자체에 씁니다.",
    },
    "hint_mla_decode_shapes": {
        "ja": "mla_decode の途中で形状が合わなくなっています。次の順に形状を確かめてください。q_C は (B, H, T_new, d_C)（view(B, T_new, H, …) のあと transpose(1, 2)）、q_C @ W_UK は (B, H, T_new, r)、c[:, None] は (B, 1, T_all, r)、スコアは (B, H, T_new, T_all)、weights @ c[:, None] は (B, H, T_new, r)、最後に W_UV.transpose(-2, -1) を右から掛けて (B, H, T_new, d_V) になります。",
        "ko": "mla_decode 안에서 모양이 어긋났습니다. 각 단계의 모양을 차례로 확인하세요. q_C는 (B, H, T_new, d_C)(view(B, T_new, H, …) 뒤에 transpose(1, 2)), q_C @ W_UK는 (B, H, T_new, r), c[:, None]은 (B, 1, T_all, r), 점수는 (B, H, T_new, T_all), weights @ c[:, None]은 (B, H, T_new, r)이고, 마지막으로 W_UV.transpose(-2, -1)을 오른쪽에서 곱하면 (B, H, T_new, d_V)가 됩니다.",
    },
    "hint_view_after_transpose": {
        "ja": "transpose したテンソルはメモリ上で連続していないため、そのままでは view できません。ヘッドに分けるときは view(B, T_new, H, D) を先に、transpose(1, 2) をあとに呼びます。ヘッドをつなぎ直すときは、transpose(1, 2) のあとに reshape（または contiguous().view）を使います。",
        "ko": "transpose한 텐서는 메모리에서 연속적이지 않아 view를 쓸 수 없습니다. 헤드로 나눌 때는 view(B, T_new, H, D)를 먼저 하고 transpose(1, 2)를 나중에 합니다. 헤드를 다시 합칠 때는 transpose(1, 2) 뒤에 reshape(또는 contiguous().view)를 쓰세요.",
    },
    "hint_mask_not_used": {
        "ja": "スコアにマスクがかかっていません。そのため、見てはいけないキー（keep が False のところ）にも重みがついています。ソフトマックスの前に scores.masked_fill(~keep, float(\"-inf\")) で隠してください。",
        "ko": "마스크가 점수에 적용되지 않았습니다. 그래서 보면 안 되는 키(keep이 False인 키)에도 가중치가 주어집니다. 소프트맥스 전에 scores.masked_fill(~keep, float(\"-inf\"))로 가리세요.",
    },
    "hint_rope_qk_swapped": {
        "ja": "rope の2つの戻り値を逆の順番で受け取っています。rope(q, k, positions) は (回したクエリ, 回したキー) の順に返すので、q, k = rope(q, k, positions) と受け取ります。",
        "ko": "rope의 반환값 두 개를 거꾸로 받았습니다. rope(q, k, positions)는 (회전한 쿼리, 회전한 키) 순서로 반환하므로 q, k = rope(q, k, positions)로 받아야 합니다.",
    },
    "hint_cache_pair_order": {
        "ja": "{name} は (出力, キャッシュ) の順に返します。いまは逆の順番で返しています。",
        "ko": "{name}의 반환값은 (출력, 캐시) 순서여야 합니다. 지금은 둘이 뒤바뀌었습니다.",
    },
    "hint_stream_sink_order": {
        "ja": "追い出したあとのキャッシュで、残した最後のトークンが先頭の n_sink 個より前に来ています。キャッシュは位置の順に並べたままにします。キーもバリューも、先頭の n_sink 個を前に、残す最後の window - T_new 個を後ろにしてつなぎます（キーなら torch.cat([k_cache[:, :, :n_sink], k_cache[:, :, L - (window - T_new):]], dim=2)）。",
        "ko": "내보낸 뒤의 캐시에서, 남겨 둔 최근 토큰이 맨 앞 n_sink개보다 앞에 와 있습니다. 캐시는 위치 순서를 지켜야 합니다. 키와 밸류 모두 맨 앞 n_sink개를 앞에, 남길 최근 토큰을 뒤에 두고 이어 붙이세요(torch.cat([x[:, :, :n_sink], x[:, :, L - recent:]], dim=2). L은 캐시 길이, recent = window - T_new).",
    },
    "hint_rolling_join_order": {
        "ja": "リングと新しいトークンをつなぐ順番が、キー・バリュー・位置（key_pos）でそろっていません。3つとも、リングを前に、新しいトークンを後ろにしてつなぎます（torch.cat([k_ring, k], dim=2)、torch.cat([v_ring, v], dim=2)、torch.cat([pos, positions])）。順番がずれると、キーが別のトークンのバリューや位置と組になってしまいます。",
        "ko": "링과 새 토큰을 이어 붙이는 순서가 키, 밸류, 위치(key_pos)에서 서로 다릅니다. 세 가지 모두 링을 앞에, 새 토큰을 뒤에 두고 이어 붙입니다(torch.cat([k_ring, k], dim=2), torch.cat([v_ring, v], dim=2), torch.cat([pos, positions])). 순서가 어긋나면 키가 다른 토큰의 밸류나 위치와 짝이 됩니다.",
    },
    "hint_merge_wrong_axes": {
        "ja": "ヘッドをつなぎ直す前の転置の軸が違います。各ヘッドの出力は (B, H, T, d_V) なので、transpose(1, 2) で H と T を入れ替えて (B, T, H, d_V) にしてから、reshape(B, T, H * d_V) で最後の2軸をつなぎます。",
        "ko": "헤드를 다시 합치기 전에 전치하는 축이 틀렸습니다. 각 헤드의 출력은 (B, H, T, d_V)이므로 transpose(1, 2)로 H와 T를 바꿔 (B, T, H, d_V)로 만든 다음, reshape(B, T, H * d_V)로 마지막 두 축을 이어 붙입니다.",
    },
    "hint_mla_cache_order": {
        "ja": "潜在キャッシュの中で、新しいトークンの c や k_R がキャッシュのものより前に来ています。位置の順に並ぶよう、c と k_R のどちらも、キャッシュを前に、新しいものを後ろにしてつなぎます（torch.cat([cache[0], c], dim=1)、torch.cat([cache[1], k_R], dim=1)）。",
        "ko": "잠재 캐시 안에서 새 토큰의 c나 k_R이 캐시에 있던 것보다 앞에 와 있습니다. 위치 순서대로 놓이도록 c와 k_R 모두 캐시를 앞에, 새 값을 뒤에 두고 이어 붙입니다(torch.cat([cache[0], c], dim=1), torch.cat([cache[1], k_R], dim=1)).",
    },
    "hint_length_is_tensor": {
        "ja": "長さ（整数）を使うところに、テンソルそのものを使っています。k.size(2) や k.shape[2] のように軸の大きさを整数で取り出してから、torch.arange や if の比較に使います。",
        "ko": "길이(수)를 써야 할 자리에 텐서 자체를 넘겼습니다. k.size(2)나 k.shape[2]처럼 축의 크기를 정수로 꺼낸 다음 torch.arange나 비교에 씁니다.",
    },
    "hint_paged_int_division": {
        "ja": "ページの番号や数が float になっています。/ で割ると float になり、インデックスにもスライスにも使えません。p // P、(length + P - 1) // P のように // で割ります。",
        "ko": "페이지 번호나 개수가 float가 되었습니다. /로 나누면 float가 되어 인덱스로도 슬라이스로도 쓸 수 없습니다. p // P, (length + P - 1) // P처럼 //로 나눕니다.",
    },
    "hint_mla_head_axis": {
        "ja": "k_R のバッチの軸（軸 0）の大きさが 1 になっています。ヘッドの軸を足すのも外すのも軸 1 です。rope に渡すときは k_R[:, None]（(B, 1, T_new, d_R)）、戻すときは k_R[:, 0] とします。k_R[None] や k_R[0] では、軸 0（バッチ）に足したり軸 0 から取り出したりしてしまいます。",
        "ko": "k_R의 첫 축(배치 축) 크기가 1이 되었습니다. 헤드 축은 축 1에 넣고 축 1에서 뺍니다. rope에 넘길 때는 k_R[:, None]으로 (B, 1, T_new, d_R)을 만들고, 되돌릴 때는 k_R[:, 0]을 씁니다. k_R[None]이나 k_R[0]은 축 0(배치 축)을 건드립니다.",
    },
    "hint_output_all_nan": {
        "ja": "出力がすべて NaN です。-inf がそのまま計算に入り込んだようです。次の点を確かめてください：マスクを掛け算で入れていないか（0 × -inf は NaN になるので、masked_fill を使います）、見てよいキーが1つもない行ができていないか（マスクの条件）、ソフトマックスを忘れていないか、ソフトマックスの軸が dim=-1 か。",
        "ko": "출력이 모두 NaN입니다. -inf가 계산에 섞여 들어갔습니다. 다음을 확인하세요: 마스크를 곱셈으로 적용하지 않았는지(0 × -inf는 NaN이 되므로 masked_fill을 씁니다), 볼 수 있는 키가 하나도 없는 행이 생기지 않았는지(마스크 조건), 소프트맥스를 빠뜨리지 않았는지, 소프트맥스의 축이 dim=-1인지.",
    },
    "hint_softmax_of_mask": {
        "ja": "bool のマスクのソフトマックスをとっています。ソフトマックスをとるのはスコアのほうです。scores = scores.masked_fill(~keep, float(\"-inf\")) でマスクをスコアに入れてから、torch.softmax(scores, dim=-1) をとります。",
        "ko": "bool 마스크에 소프트맥스를 적용했습니다. 소프트맥스는 점수에 적용합니다. 마스크는 scores.masked_fill(~keep, float(\"-inf\"))로 점수에 적용한 다음, torch.softmax(scores, dim=-1)을 계산하세요.",
    },
    "hint_tril_no_tensor": {
        "ja": "torch.tril に、下三角を取り出すテンソルを渡していません。torch.ones(T_new, T_all, dtype=torch.bool).tril(diagonal=T_past) のようにテンソルを作ってからそのメソッドとして呼ぶか、torch.tril(テンソル, diagonal=T_past) のように最初の引数として渡します。",
        "ko": "torch.tril에 아래 삼각형으로 만들 텐서를 넘기지 않았습니다. torch.ones(T_new, T_all, dtype=torch.bool).tril(diagonal=T_past)처럼 텐서를 만든 뒤 그 텐서의 메서드로 호출하거나, torch.tril(텐서, diagonal=T_past)처럼 텐서를 첫 인수로 넘기세요.",
    },
    "hint_keys_values_swapped": {
        "ja": "キーとバリューが入れ替わっています。キャッシュと新しいトークンのキー・バリューをつなぐところ（あるいはキャッシュを分解するところや返すところ）で、キーはキーどうし、バリューはバリューどうしをつないでください。",
        "ko": "키와 밸류가 뒤바뀌었습니다. 캐시와 새 토큰을 이어 붙이는 곳(또는 캐시를 언패킹하거나 반환하는 곳)에서 키는 키끼리, 밸류는 밸류끼리 이어 붙여야 합니다.",
    },
}
